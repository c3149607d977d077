import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";

export const federatedHandlers: HandlerMap = {
  "GET /api/federated": async ({ services, url, user }) =>
    json(await services.federated.summary(url.searchParams, user!)),
};
