import { actsForAnyContext, NO_CONTEXT, ownContextId } from "../dataspace";
import { forbidden, json, noContent } from "../http/errors";
import { parsedBody, parsedQuery } from "../http/contract";
import { presentString, type HandlerContext, type HandlerMap } from "../http/handler";
import { policyBodies, policyQueries } from "./contract";
import { effectiveScope } from "./scope";
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

/**
 * A policy is written in a participant context by the one rule of acting participants
 * (server/dataspace/acting.ts): a CONNECTOR_ADMIN in any, the access body only in its own (403
 * otherwise), checked before the body's other fields. Answers the context named, or (for a delete
 * that names none) the caller's own, which is the only one it may delete from.
 */
async function writesIn(ctx: HandlerContext<PolicyServices>, named: unknown): Promise<string | undefined> {
  const ds = ctx.services.dataspace;
  const participantId = presentString(named);
  if (participantId) {
    await ds.actingFor(ctx.user!, participantId);
    return participantId;
  }
  if (actsForAnyContext(ctx.user!)) return undefined;
  const own = ownContextId(await ds.participantForUser(ctx.user!));
  if (!own) throw forbidden(NO_CONTEXT);
  return own;
}

export const policyHandlers: HandlerMap<PolicyServices> = {
  "GET /api/admin/policies": async (ctx) => {
    const { participantId, policyId } = parsedQuery(ctx, policyQueries.list);
    if (presentString(policyId)) return json(await ctx.services.policies.get(participantId!, policyId!));
    return json(await ctx.services.policies.list(presentString(participantId)));
  },
  "POST /api/admin/policies": async (ctx) => {
    const { participantId, policy } = parsedBody(ctx, policyBodies.create);
    await writesIn(ctx, participantId);
    return json(await ctx.services.policies.create(participantId, policy, actor(ctx)), 201);
  },
  "PUT /api/admin/policies": async (ctx) => {
    const { policyId, participantId, policy } = parsedBody(ctx, policyBodies.update);
    await writesIn(ctx, participantId);
    return json(await ctx.services.policies.replace(policyId, participantId, policy, actor(ctx)));
  },
  "DELETE /api/admin/policies": async (ctx) => {
    const query = parsedQuery(ctx, policyQueries.remove);
    const participantId = await writesIn(ctx, query.participantId);
    await ctx.services.policies.remove(query.policyId, participantId, actor(ctx));
    return noContent();
  },

  "GET /api/odrl/scope": async (ctx) => json(await effectiveScope(ctx.services, ctx.user!)),
};
