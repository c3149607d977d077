import { jsonBuffer } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { AccessBodyWithCompliance } from "./index";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface ComplianceServices {
  accessBody: AccessBodyWithCompliance;
}

/** GET /api/compliance (summary per participant) and GET /api/compliance/tck (conformance probes; `?run=1` re-runs). */
export const complianceHandlers: HandlerMap<ComplianceServices> = {
  // the kept answer: the same bytes as json(compliance(user))
  "GET /api/compliance": async ({ services, user }) =>
    jsonBuffer(await services.accessBody.complianceBody(user!)),
  "GET /api/compliance/tck": async ({ services, query, headers }) => {
    const run = query.get("run");
    return jsonBuffer(
      await services.accessBody.tckBody({
        rerun: run === "1" || run === "true",
        cookie: headers.get("cookie") ?? undefined,
      }),
    );
  },
};
