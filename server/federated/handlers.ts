import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { FederatedService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface FederatedServices {
  federated: FederatedService;
}

export const federatedHandlers: HandlerMap<FederatedServices> = {
  "GET /api/federated": async ({ services, query, user }) =>
    json(await services.federated.summary(query, user!)),
};
