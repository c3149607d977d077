import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { Config } from "../config";
import { forUser, type EehrxfService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface EehrxfServices {
  eehrxf: EehrxfService;
  config: Pick<Config, "federatedK">;
}

export const eehrxfHandlers: HandlerMap<EehrxfServices> = {
  "GET /api/eehrxf": async ({ services, user }) =>
    json(forUser(await services.eehrxf.coverage(), user!, services.config.federatedK)),
};
