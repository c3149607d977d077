import { parsedBody, parsedQuery } from "../http/contract";
import { json, noContent } from "../http/errors";
import { presentString, type HandlerMap } from "../http/handler";
import { checkId } from "../http/ids";
import { credentialListQuery, credentialRequestBody } from "./contract";
import type { CredentialService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface CredentialServices {
  credentials: CredentialService;
}

/** /api/credentials (spec section 4, Credentials). Roles come from the route table: a caller is signed in. */

export const credentialHandlers: HandlerMap<CredentialServices> = {
  "GET /api/credentials": async (ctx) =>
    json(
      await ctx.services.credentials.list(
        ctx.user!,
        presentString(parsedQuery(ctx, credentialListQuery).participantId),
      ),
    ),
  "GET /api/credentials/definitions": async (ctx) => json(await ctx.services.credentials.definitions()),
  "POST /api/credentials/request": async (ctx) => {
    // both present and identifiers: the declaration checked them (contract.ts)
    const { participantContextId, credentialType } = parsedBody(ctx, credentialRequestBody);
    return json(await ctx.services.credentials.request(participantContextId, credentialType, ctx.user!), 201);
  },
  "DELETE /api/credentials/:id": async (ctx) => {
    await ctx.services.credentials.revoke(checkId(ctx.params.id ?? "", "id"), ctx.user!);
    return noContent();
  },
};
