import { sentBody } from "../http/contract";
import { json, noContent } from "../http/errors";
import { presentString, type HandlerContext, type HandlerMap } from "../http/handler";
import { parseDirectoryInput } from "./directory";
import type { OidcClient } from "../auth/oidc-client";
import { readingResponse } from "./readings";
import type { OperatorService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface OperatorServices {
  operator: OperatorService;
  /** a restart of the identity provider swaps this client in the container */
  oidc: OidcClient;
}

/**
 * The operator console's routes (/api/admin/tenants, /api/admin/participants,
 * /api/admin/components/*, /api/debug/phase26), the identity provider's address
 * (/api/keycloak-config, public) and the demonstration DSP catalogue (/api/mock-dsp/*, a session
 * or the crawler's token). Access is enforced by the dispatcher from the route table.
 */

const actor = (ctx: HandlerContext<OperatorServices>) => ctx.user?.username ?? "anonymous";

export const operatorHandlers: HandlerMap<OperatorServices> = {
  "GET /api/admin/tenants": async (ctx) => json(await ctx.services.operator.tenants()),

  "GET /api/admin/participants": async (ctx) => json(await ctx.services.operator.directory()),
  "POST /api/admin/participants": async (ctx) => {
    const input = parseDirectoryInput(sentBody(ctx));
    return json(await ctx.services.operator.addDirectoryEntry(input, actor(ctx)), 201);
  },
  "DELETE /api/admin/participants": async (ctx) => {
    // the declaration requires one of them (not blank)
    const key = presentString(ctx.input.query.did) ?? presentString(ctx.input.query.id);
    await ctx.services.operator.removeDirectoryEntry(key!, actor(ctx));
    return noContent();
  },

  // the last background round of probes, with its age (readings.ts)
  "GET /api/admin/components": async (ctx) => readingResponse(await ctx.services.operator.components()),
  "GET /api/admin/components/topology": async (ctx) =>
    readingResponse(await ctx.services.operator.topology()),
  "GET /api/admin/components/:name/diagnosis": async (ctx) =>
    json(await ctx.services.operator.diagnosis(ctx.params.name)),
  "POST /api/admin/components/:name/restart": async (ctx) =>
    json(await ctx.services.operator.restart(ctx.params.name, ctx.services, actor(ctx))),

  "GET /api/debug/phase26": async (ctx) => readingResponse(await ctx.services.operator.discoveryCheck()),

  "GET /api/keycloak-config": async (ctx) =>
    json(ctx.services.operator.identityProvider(ctx.services.oidc.issuer)),

  "GET /api/mock-dsp/:participant/catalog/request": async (ctx) =>
    json(await ctx.services.operator.catalog(ctx.params.participant)),
  "POST /api/mock-dsp/:participant/catalog/request": async (ctx) => {
    ctx.services.operator.checkCatalogRequest(sentBody(ctx));
    return json(await ctx.services.operator.catalog(ctx.params.participant));
  },
};
