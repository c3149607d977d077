import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { EehrxfService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface EehrxfServices {
  eehrxf: EehrxfService;
}

export const eehrxfHandlers: HandlerMap<EehrxfServices> = {
  "GET /api/eehrxf": async ({ services, user }) => json(await services.eehrxf.coverage(user!)),
};
