import { json } from "../http/errors";
import { readJsonObject, type HandlerMap } from "../http/handler";
import type { NlqService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface NlqServices {
  nlq: NlqService;
}

export const nlqHandlers: HandlerMap<NlqServices> = {
  "GET /api/nlq": async ({ services }) => json(services.nlq.list()),
  "POST /api/nlq": async ({ services, request, user }) =>
    json(await services.nlq.ask(await readJsonObject(request), user!)),
  "GET /api/nlq/backend": async ({ services }) => json(await services.nlq.backend()),
};
