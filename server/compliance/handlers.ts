import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { AccessBodyWithCompliance } from "./index";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface ComplianceServices {
  accessBody: AccessBodyWithCompliance;
}

/** GET /api/compliance (summary per participant) and GET /api/compliance/tck (conformance probes; `?run=1` re-runs). */
export const complianceHandlers: HandlerMap<ComplianceServices> = {
  "GET /api/compliance": async ({ services, user }) => json(await services.accessBody.compliance(user!)),
  "GET /api/compliance/tck": async ({ services, input, headers }) => {
    const run = input.query.run;
    return json(
      await services.accessBody.tck({
        rerun: run === "1" || run === "true",
        cookie: headers.get("cookie") ?? undefined,
      }),
    );
  },
};
