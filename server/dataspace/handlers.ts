import { badRequest, json, unauthorized } from "../http/errors";
import { presentString, readJsonObject, type HandlerContext, type HandlerMap } from "../http/handler";
import { checkHttpUrl, checkId, checkOptionalId } from "../http/ids";
import { readsAnyContext } from "./acting";
import { parseAssetInput } from "./assets";
import { parseNegotiationRequest, PARTICIPANT_ID_REQUIRED, PROVIDER_DID_REQUIRED } from "./negotiations";
import { parseOnboardingInput, parseParticipantUpdate } from "./participants";
import { parseTransferRequest } from "./transfers";
import type { Dataspace } from ".";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface DataspaceServices {
  dataspace: Dataspace;
}

/**
 * The /api routes of the dataspace capability (spec section 4: Negotiations, Transfers, Assets,
 * Participants, Tasks). Thin: parse, call the service, answer JSON. Session and roles are
 * enforced by the dispatcher from the route table before a handler runs. Every id that goes on to
 * the connector or tenant manager is checked for syntax first (server/http/ids.ts): 400, no call.
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

async function requiredParticipantId(ctx: HandlerContext<DataspaceServices>): Promise<string> {
  const id = presentString(ctx.query.get("participantId"));
  if (!id) throw badRequest(PARTICIPANT_ID_REQUIRED);
  return acting(ctx, id);
}

const pathId = (ctx: HandlerContext<DataspaceServices>, name = "id") => checkId(ctx.params[name] ?? "", name);

export const dataspaceHandlers: HandlerMap<DataspaceServices> = {
  "GET /api/negotiations": async (ctx) => {
    const participantId = await requiredParticipantId(ctx);
    const ds = ctx.services.dataspace;
    if (ctx.query.get("catalog") === "true") {
      const providerDid = presentString(ctx.query.get("providerDid"));
      if (!providerDid) throw badRequest(PROVIDER_DID_REQUIRED);
      checkId(providerDid, "providerDid");
      const address = presentString(ctx.query.get("counterPartyAddress"));
      if (address) checkHttpUrl(address, "counterPartyAddress");
      return json(await ds.fetchProviderCatalog(participantId, providerDid, address));
    }
    return json(await ds.listNegotiations(participantId));
  },
  "POST /api/negotiations": async (ctx) => {
    const request = parseNegotiationRequest(await readJsonObject(ctx.request));
    checkId(request.participantId, "participantId");
    checkId(request.assetId, "assetId");
    checkOptionalId(request.counterPartyId, "counterPartyId");
    checkOptionalId(request.providerDid, "providerDid");
    checkHttpUrl(request.counterPartyAddress, "counterPartyAddress");
    await acting(ctx, request.participantId);
    return json(await ctx.services.dataspace.startNegotiation(request, actor(ctx)), 201);
  },
  "GET /api/negotiations/:id": async (ctx) =>
    json(await ctx.services.dataspace.getNegotiation(await requiredParticipantId(ctx), pathId(ctx))),

  "GET /api/transfers": async (ctx) =>
    json(await ctx.services.dataspace.listTransfers(await requiredParticipantId(ctx))),
  "POST /api/transfers": async (ctx) => {
    const request = parseTransferRequest(await readJsonObject(ctx.request));
    checkId(request.participantId, "participantId");
    checkHttpUrl(request.counterPartyAddress, "counterPartyAddress");
    if (request.assetId) checkId(request.assetId, "assetId");
    await acting(ctx, request.participantId);
    return json(await ctx.services.dataspace.startTransfer(request, actor(ctx)), 201);
  },
  "GET /api/transfers/:id": async (ctx) =>
    json(await ctx.services.dataspace.getTransfer(await requiredParticipantId(ctx), pathId(ctx))),

  "GET /api/assets": async (ctx) => {
    // without participantId: the offers of every participant, grouped (what the dataspace offers to all)
    const requested = presentString(ctx.query.get("participantId"));
    const ds = ctx.services.dataspace;
    return requested
      ? json(await ds.listAssets(await acting(ctx, requested)))
      : json(await ds.listAssetGroups());
  },
  "POST /api/assets": async (ctx) => {
    const input = parseAssetInput(await readJsonObject(ctx.request));
    checkId(input.participantId, "participantId");
    checkId(input.assetId, "assetId");
    await acting(ctx, input.participantId);
    return json(await ctx.services.dataspace.createAsset(input, actor(ctx)), 201);
  },

  "GET /api/participants": async (ctx) => json(await ctx.services.dataspace.listParticipants()),
  "POST /api/participants": async (ctx) => {
    const input = parseOnboardingInput(await readJsonObject(ctx.request));
    return json(await ctx.services.dataspace.onboardParticipant(input, actor(ctx)), 201);
  },
  "PATCH /api/participants/:id": async (ctx) => {
    const update = parseParticipantUpdate(await readJsonObject(ctx.request));
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
