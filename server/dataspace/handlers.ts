import { parsedBody, parsedQuery, sentBody } from "../http/contract";
import { json, unauthorized } from "../http/errors";
import { presentString, type HandlerContext, type HandlerMap } from "../http/handler";
import { checkHttpUrl, checkId } from "../http/ids";
import { readsAnyContext } from "./acting";
import { parseAssetInput } from "./assets";
import {
  assetBody,
  assetsQuery,
  byParticipant,
  negotiationBody,
  negotiationList,
  transferBody,
} from "./contract";
import { parseNegotiationRequest } from "./negotiations";
import { parseOnboardingInput, parseParticipantUpdate } from "./participants";
import { parseTransferRequest } from "./transfers";
import type { Dataspace } from ".";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface DataspaceServices {
  dataspace: Dataspace;
}

/**
 * The /api routes of the dataspace capability (spec section 4: Negotiations, Transfers, Assets,
 * Participants, Tasks). Thin: read the input, call the service, answer JSON. Session and roles are
 * enforced by the dispatcher from the route table before a handler runs, and query and body are parsed
 * by it with each route's declaration (contract.ts: required fields with the spec's texts, then every
 * id and address that goes on to the connector or tenant manager, 400 and no call): read `ctx.input`.
 */

const actor = (ctx: HandlerContext<DataspaceServices>) => ctx.user?.username ?? "anonymous";

/**
 * The participant context a call reads or acts in, checked by the one rule of acting participants
 * (server/dataspace/acting.ts): the caller's own organisation's, any for a CONNECTOR_ADMIN; 403 otherwise.
 */
async function acting(ctx: HandlerContext<DataspaceServices>, participantId: string): Promise<string> {
  checkId(participantId, "participantId");
  if (!ctx.user) throw unauthorized();
  return ctx.services.dataspace.actingFor(ctx.user, participantId);
}

/** the participant context of a route whose declaration requires `participantId` (byParticipant, negotiationList) */
const requiredParticipantId = (ctx: HandlerContext<DataspaceServices>): Promise<string> =>
  acting(ctx, parsedQuery(ctx, byParticipant).participantId);

const pathId = (ctx: HandlerContext<DataspaceServices>, name = "id") => checkId(ctx.params[name] ?? "", name);

export const dataspaceHandlers: HandlerMap<DataspaceServices> = {
  "GET /api/negotiations": async (ctx) => {
    const q = parsedQuery(ctx, negotiationList);
    const participantId = await acting(ctx, q.participantId);
    const ds = ctx.services.dataspace;
    if (q.catalog === "true") {
      // present: the declaration requires providerDid with catalog=true, and checks its syntax
      const providerDid = presentString(q.providerDid)!;
      const address = presentString(q.counterPartyAddress);
      if (address) checkHttpUrl(address, "counterPartyAddress");
      return json(await ds.fetchProviderCatalog(participantId, providerDid, address));
    }
    return json(await ds.listNegotiations(participantId));
  },
  "POST /api/negotiations": async (ctx) => {
    // ids and address checked by the declaration; the request's shape (offer or policy) by the parser
    const request = parseNegotiationRequest(parsedBody(ctx, negotiationBody));
    await acting(ctx, request.participantId);
    return json(await ctx.services.dataspace.startNegotiation(request, actor(ctx)), 201);
  },
  "GET /api/negotiations/:id": async (ctx) =>
    json(await ctx.services.dataspace.getNegotiation(await requiredParticipantId(ctx), pathId(ctx))),

  "GET /api/transfers": async (ctx) =>
    json(await ctx.services.dataspace.listTransfers(await requiredParticipantId(ctx))),
  "POST /api/transfers": async (ctx) => {
    const request = parseTransferRequest(parsedBody(ctx, transferBody));
    await acting(ctx, request.participantId);
    return json(await ctx.services.dataspace.startTransfer(request, actor(ctx)), 201);
  },
  "GET /api/transfers/:id": async (ctx) =>
    json(await ctx.services.dataspace.getTransfer(await requiredParticipantId(ctx), pathId(ctx))),

  "GET /api/assets": async (ctx) => {
    // without participantId: the offers of every participant, grouped (what the dataspace offers to all)
    const requested = presentString(parsedQuery(ctx, assetsQuery).participantId);
    const ds = ctx.services.dataspace;
    return requested
      ? json(await ds.listAssets(await acting(ctx, requested)))
      : json(await ds.listAssetGroups());
  },
  "POST /api/assets": async (ctx) => {
    const input = parseAssetInput(parsedBody(ctx, assetBody));
    await acting(ctx, input.participantId);
    return json(await ctx.services.dataspace.createAsset(input, actor(ctx)), 201);
  },

  "GET /api/participants": async (ctx) => json(await ctx.services.dataspace.listParticipants()),
  "POST /api/participants": async (ctx) => {
    const input = parseOnboardingInput(sentBody(ctx));
    return json(await ctx.services.dataspace.onboardParticipant(input, actor(ctx)), 201);
  },
  "PATCH /api/participants/:id": async (ctx) => {
    const update = parseParticipantUpdate(sentBody(ctx));
    return json(await ctx.services.dataspace.updateParticipant(pathId(ctx), update, actor(ctx)));
  },
  "GET /api/participants/me": async (ctx) => {
    if (!ctx.user) throw unauthorized();
    return json(await ctx.services.dataspace.participantForUser(ctx.user));
  },
  "GET /api/participants/:id/credentials": async (ctx) => {
    const id = pathId(ctx);
    if (!ctx.user) throw unauthorized();
    // the holder's own, or any for those who issue and revoke credentials (server/dataspace/acting.ts)
    if (!readsAnyContext(ctx.user)) await ctx.services.dataspace.actingFor(ctx.user, id);
    return json(await ctx.services.dataspace.participantCredentials(id));
  },

  "GET /api/tasks": async (ctx) => {
    if (!ctx.user) throw unauthorized();
    return json(await ctx.services.dataspace.listTasks(ctx.user));
  },
};
