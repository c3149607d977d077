import { json, noContent, unauthorized } from "../http/errors";
import { presentString, readJsonObject, type HandlerContext, type HandlerMap } from "../http/handler";
import { checkId, checkOptionalId } from "../http/ids";
import { parseCredentialRequest } from "./service";
import type { CredentialService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface CredentialServices {
  credentials: CredentialService;
}

/** /api/credentials (spec section 4, Credentials). Roles come from the route table. */

function user(ctx: HandlerContext<CredentialServices>) {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

export const credentialHandlers: HandlerMap<CredentialServices> = {
  "GET /api/credentials": async (ctx) =>
    json(
      await ctx.services.credentials.list(
        user(ctx),
        checkOptionalId(presentString(ctx.query.get("participantId")), "participantId"),
      ),
    ),
  "GET /api/credentials/definitions": async (ctx) => json(await ctx.services.credentials.definitions()),
  "POST /api/credentials/request": async (ctx) => {
    const { participantContextId, credentialType } = parseCredentialRequest(
      await readJsonObject(ctx.request),
    );
    checkId(participantContextId, "participantContextId");
    checkId(credentialType, "credentialType");
    return json(await ctx.services.credentials.request(participantContextId, credentialType, user(ctx)), 201);
  },
  "DELETE /api/credentials/:id": async (ctx) => {
    await ctx.services.credentials.revoke(checkId(ctx.params.id ?? "", "id"), user(ctx));
    return noContent();
  },
};
