import { json } from "../http/errors";
import { readJsonObject, type HandlerMap } from "../http/handler";

export const nlqHandlers: HandlerMap = {
  "GET /api/nlq": async ({ services }) => json(services.nlq.list()),
  "POST /api/nlq": async ({ services, request, user }) =>
    json(await services.nlq.ask(await readJsonObject(request), user!)),
  "GET /api/nlq/backend": async ({ services }) => json(await services.nlq.backend()),
};
