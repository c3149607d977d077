import { expect } from "vitest";
import type { TestServer } from "./server";
import { sendJson, type Signed } from "./signin";
import { until } from "./until";

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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type Json = any;
const ALPHA_DID = "did:web:alpha-klinik.de:participant";

/** PharmaCo's researcher asks AlphaKlinik's catalogue and starts a contract for `assetId` as it is offered: the start's answer */
export async function researcherNegotiates(server: TestServer, researcher: Signed, assetId: string) {
  const catalog = await sendJson(
    researcher,
    `/api/negotiations?participantId=pharmaco&catalog=true&providerDid=${encodeURIComponent(ALPHA_DID)}`,
  );
  expect(catalog.status).toBe(200);
  const summary = server.services.dataspace.summariseCatalog(catalog.body);
  const offered = summary.datasets.find((d) => d.id === assetId)!;
  return sendJson(researcher, "/api/negotiations", {
    participantId: "pharmaco",
    counterPartyAddress: summary.endpointUrl,
    counterPartyId: "alphaklinik-berlin",
    providerDid: ALPHA_DID,
    offerId: offered.offers[0].id,
    assetId,
  });
}

/** `assetId` contracted for (FINALIZED), transferred and pulled as PharmaCo's researcher: what arrives */
export async function researcherPulls(
  server: TestServer,
  researcher: Signed,
  assetId: string,
): Promise<Json> {
  const started = await researcherNegotiates(server, researcher, assetId);
  expect(started.status, assetId).toBe(201);
  const n = await until(
    async () =>
      (await sendJson(researcher, `/api/negotiations/${started.body["@id"]}?participantId=pharmaco`)).body,
    (x: Json) => x.state === "FINALIZED" || x.state === "TERMINATED",
  );
  expect(n.state).toBe("FINALIZED");
  const t = await sendJson(researcher, "/api/transfers", {
    participantId: "pharmaco",
    contractId: n.contractAgreementId,
    counterPartyAddress: n.counterPartyAddress,
    assetId,
  });
  expect(t.status).toBe(201);
  await until(
    async () => (await sendJson(researcher, `/api/transfers/${t.body["@id"]}?participantId=pharmaco`)).body,
    (x: Json) => x.state === "STARTED" || x.state === "TERMINATED",
  );
  return server.services.dataspace.pullTransferData("pharmaco", t.body["@id"], "researcher");
}
