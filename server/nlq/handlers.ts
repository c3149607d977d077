import { sentBody } from "../http/contract";
import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { NlqService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface NlqServices {
  nlq: NlqService;
}

export const nlqHandlers: HandlerMap<NlqServices> = {
  "GET /api/nlq": async ({ services }) => json(services.nlq.list()),
  // the body as sent: the service parses it with the declared schema's rules and texts (contract.ts)
  "POST /api/nlq": async (ctx) => json(await ctx.services.nlq.ask(sentBody(ctx), ctx.user!)),
  "GET /api/nlq/backend": async ({ services }) => json(await services.nlq.backend()),
};
