import { expect } from "vitest";
import { sendJson, type Signed } from "./signin";

/**
 * A data permit granted through the access body's routes: the applicant applies (`application`: title,
 * summary, purpose, datasets, pseudonymised), the regulator marks the application complete and grants it;
 * the permit's id.
 */
export async function grantedPermit(
  applicant: Signed,
  regulator: Signed,
  application: Record<string, unknown>,
): Promise<string> {
  const app = await sendJson(applicant, "/api/compliance/applications", application);
  expect(app.status).toBe(201);
  const applicationId = app.body.id ?? app.body.application?.id;
  const complete = await sendJson(regulator, "/api/compliance/applications/complete", {
    applicationId,
    complete: true,
  });
  expect(complete.status).toBe(200);
  const permit = await sendJson(regulator, "/api/compliance/permits", {
    applicationId,
    durationMonths: 12,
    conditions: "Results published within 18 months",
    secureProcessingEnvironment: "MedReg SPE",
  });
  expect(permit.status).toBe(201);
  return permit.body.id;
}
