import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import { analyticsHandlers } from "../analytics/handlers";
import { eehrxfHandlers } from "../eehrxf/handlers";
import { federatedHandlers } from "../federated/handlers";
import { nlqHandlers } from "../nlq/handlers";

export const overviewHandlers: HandlerMap = {
  "GET /api/overview": async ({ services, url, user }) =>
    json(await services.overview.forUser(user!, url.searchParams.get("persona"), services)),
};

/** every insight route (analytics, federated cohorts, questions, EEHRxF, overview): one spread in server/http/handlers.ts */
export const insightHandlers: HandlerMap = {
  ...analyticsHandlers,
  ...federatedHandlers,
  ...nlqHandlers,
  ...eehrxfHandlers,
  ...overviewHandlers,
};
