import { badRequest, json, jsonBuffer, noContent, unauthorized } from "../http/errors";
import { presentString, readJsonObject, type HandlerContext, type HandlerMap } from "../http/handler";
import { effectiveScopeBody } from "./scope";
import { parsePolicyCreate, parsePolicyUpdate, POLICY_ID_REQUIRED } from "./service";
import type { Dataspace } from "../dataspace";
import type { GraphStore } from "../graph";
import type { PolicyService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface PolicyServices {
  policies: PolicyService;
  graph: GraphStore;
  dataspace: Dataspace;
}

/**
 * /api/admin/policies (spec section 4, Admin: CONNECTOR_ADMIN or HDAB_AUTHORITY, enforced by the
 * dispatcher) and GET /api/odrl/scope (any signed-in caller: their own scope).
 */

const actor = (ctx: HandlerContext<PolicyServices>) => ctx.user?.username ?? "anonymous";

export const policyHandlers: HandlerMap<PolicyServices> = {
  "GET /api/admin/policies": async (ctx) => {
    const participantId = presentString(ctx.query.get("participantId"));
    const policyId = presentString(ctx.query.get("policyId"));
    if (policyId) {
      if (!participantId) throw badRequest("participantId is required with policyId");
      return json(await ctx.services.policies.get(participantId, policyId));
    }
    // kept per version of its inputs (the same bytes as json(list(participantId)))
    return jsonBuffer(await ctx.services.policies.listBody(participantId));
  },
  "POST /api/admin/policies": async (ctx) => {
    const { participantId, policy } = parsePolicyCreate(await readJsonObject(ctx.request));
    return json(await ctx.services.policies.create(participantId, policy, actor(ctx)), 201);
  },
  "PUT /api/admin/policies": async (ctx) => {
    const { policyId, participantId, policy } = parsePolicyUpdate(await readJsonObject(ctx.request));
    return json(await ctx.services.policies.replace(policyId, participantId, policy, actor(ctx)));
  },
  "DELETE /api/admin/policies": async (ctx) => {
    const policyId = presentString(ctx.query.get("policyId"));
    if (!policyId) throw badRequest(POLICY_ID_REQUIRED);
    const participantId = presentString(ctx.query.get("participantId"));
    await ctx.services.policies.remove(policyId, participantId, actor(ctx));
    return noContent();
  },

  "GET /api/odrl/scope": async (ctx) => {
    if (!ctx.user) throw unauthorized();
    return jsonBuffer(
      await effectiveScopeBody({ graph: ctx.services.graph, dataspace: ctx.services.dataspace }, ctx.user),
    );
  },
};
