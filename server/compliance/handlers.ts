import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";

/** GET /api/compliance (summary per participant) and GET /api/compliance/tck (conformance probes; `?run=1` re-runs). */
export const complianceHandlers: HandlerMap = {
  "GET /api/compliance": async ({ services, user }) => json(await services.accessBody.compliance(user!)),
  "GET /api/compliance/tck": async ({ services, url, request }) => {
    const run = url.searchParams.get("run");
    return json(
      await services.accessBody.tck({
        rerun: run === "1" || run === "true",
        cookie: request.headers.get("cookie") ?? undefined,
      }),
    );
  },
};
