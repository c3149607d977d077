import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { TrustCenterService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface TrustCenterServices {
  trustCenter: TrustCenterService;
}

/** GET /api/trust-center (TRUST_CENTER_OPERATOR and CONNECTOR_ADMIN, from the route table). */
export const trustCenterHandlers: HandlerMap<TrustCenterServices> = {
  "GET /api/trust-center": async (ctx) => json(await ctx.services.trustCenter.view()),
};
