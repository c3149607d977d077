import { badRequest, json, jsonBuffer, noContent } from "../http/errors";
import { presentString, readJsonObject, type HandlerContext, type HandlerMap } from "../http/handler";
import { DIRECTORY_DID_REQUIRED, parseDirectoryInput } from "./directory";
import type { OidcClient } from "../auth/oidc-client";
import { keptResponse } from "./kept-answer";
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
  "GET /api/admin/tenants": async (ctx) => jsonBuffer(await ctx.services.operator.tenantsBody()),

  // kept per version of what they read (the same bytes as json(directory()) and json(catalog(...)))
  "GET /api/admin/participants": async (ctx) => jsonBuffer(await ctx.services.operator.directoryBody()),
  "POST /api/admin/participants": async (ctx) => {
    const input = parseDirectoryInput(await readJsonObject(ctx.request));
    return json(await ctx.services.operator.addDirectoryEntry(input, actor(ctx)), 201);
  },
  "DELETE /api/admin/participants": async (ctx) => {
    const key = presentString(ctx.query.get("did")) ?? presentString(ctx.query.get("id"));
    if (!key) throw badRequest(DIRECTORY_DID_REQUIRED);
    await ctx.services.operator.removeDirectoryEntry(key, actor(ctx));
    return noContent();
  },

  // the last background round of probes, encoded once per round, with its age (kept-answer.ts)
  "GET /api/admin/components": async (ctx) => keptResponse(await ctx.services.operator.componentsBody()),
  "GET /api/admin/components/topology": async (ctx) =>
    keptResponse(await ctx.services.operator.topologyBody()),
  "GET /api/admin/components/:name/diagnosis": async (ctx) =>
    jsonBuffer(await ctx.services.operator.diagnosisBody(ctx.params.name)),
  "POST /api/admin/components/:name/restart": async (ctx) =>
    json(await ctx.services.operator.restart(ctx.params.name, ctx.services, actor(ctx))),

  "GET /api/debug/phase26": async (ctx) => keptResponse(await ctx.services.operator.discoveryCheckBody()),

  "GET /api/keycloak-config": async (ctx) =>
    json(ctx.services.operator.identityProvider(ctx.services.oidc.issuer)),

  "GET /api/mock-dsp/:participant/catalog/request": async (ctx) =>
    jsonBuffer(await ctx.services.operator.catalogBody(ctx.params.participant)),
  "POST /api/mock-dsp/:participant/catalog/request": async (ctx) => {
    ctx.services.operator.checkCatalogRequest(await readJsonObject(ctx.request));
    return json(await ctx.services.operator.catalog(ctx.params.participant));
  },
};
