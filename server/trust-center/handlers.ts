import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";

/** GET /api/trust-center (TRUST_CENTER_OPERATOR and CONNECTOR_ADMIN, from the route table). */
export const trustCenterHandlers: HandlerMap = {
  "GET /api/trust-center": async (ctx) => json(await ctx.services.trustCenter.view()),
};
