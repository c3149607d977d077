import { randomUUID } from "node:crypto";
import { contractPolicyOf, decodeOfferId, offerOf, selects } from "./catalog";
import {
  contextOfDspAddress,
  ctxKey,
  dspAddressOf,
  processesIn,
  rejected,
  type LocalContext,
} from "./context";
import { badRequest } from "./http";
import type {
  AgreementRecord,
  AssetRecord,
  ContractDefinitionRecord,
  Json,
  NegotiationRecord,
  NegotiationState,
  ParticipantRecord,
} from "./models";

/**
 * Contract negotiations of the local dataspace, consumer and provider side, moving through the
 * DSP states on timers: REQUESTED → AGREED → VERIFIED → FINALIZED, or TERMINATED with an
 * `errorDetail` when the provider rejects the request (unknown offer, wrong assigner, a policy
 * that differs from the offer). State is persisted at every step and resumed after a restart.
 */

const { save, transition, counterpart, terminate } = processesIn<NegotiationRecord>(
  "negotiations",
  "ContractNegotiation",
  "TerminateNegotiationCommand",
  ["FINALIZED", "TERMINATED"],
);

/** A JSON-LD value with `odrl:` prefixes, ODRL IRIs and `{"@id": x}` wrappers taken off, keys sorted. */
function plain(value: unknown): unknown {
  const bare = (k: string) => k.replace(/^odrl:/, "").replace("http://www.w3.org/ns/odrl/2/", "");
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const o = value as Json;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === "@id") return plain(o["@id"]);
    const out: Json = {};
    for (const k of keys.map((k) => [k, bare(k)] as const).sort((a, b) => a[1].localeCompare(b[1])))
      out[k[1]] = plain(o[k[0]]);
    return out;
  }
  return typeof value === "string" ? bare(value) : value;
}

/**
 * The rules of a policy (permissions, prohibitions, obligations with their constraints), normalised
 * for comparison: as EDC's provider does, the requested policy must equal the offered one, not only
 * name the same actions. A missing or empty rule list counts as none.
 */
function rulesOf(policy: Json): string {
  const rules = (name: string) => {
    const v = policy[name] ?? policy[`odrl:${name}`];
    const list = Array.isArray(v) ? v : v ? [v] : [];
    return list.map((r) => JSON.stringify(plain(r))).sort();
  };
  return JSON.stringify({
    permission: rules("permission"),
    prohibition: rules("prohibition"),
    obligation: rules("obligation"),
  });
}

/** The provider's verdict on a contract request: the matched offer, or why it is rejected. */
function evaluate(ctx: LocalContext, consumer: NegotiationRecord) {
  const provider = contextOfDspAddress(ctx, consumer.counterPartyAddress);
  if (!provider || provider.state !== "ACTIVATED")
    return rejected(`No participant of this dataspace answers at ${consumer.counterPartyAddress}`);
  const assigner = String(consumer.policy.assigner ?? "");
  if (assigner !== provider.identity)
    return rejected(
      `The offer's assigner "${assigner}" is not the provider's DID ${provider.identity}: the provider cannot verify the consumer's credentials (DCP) against it`,
    );
  const decoded = decodeOfferId(consumer.offerId);
  const definition = decoded
    ? ctx.store.get<ContractDefinitionRecord>(
        "contractdefinitions",
        ctxKey(provider["@id"], decoded.definitionId),
      )
    : undefined;
  const asset = decoded
    ? ctx.store.get<AssetRecord>("assets", ctxKey(provider["@id"], decoded.assetId))
    : undefined;
  if (!decoded || !definition || !asset || !selects(definition, asset))
    return rejected(`Contract offer ${consumer.offerId} is unknown to the provider ${provider.identity}`);
  if (consumer.assetId !== asset["@id"])
    return rejected(`The offer ${consumer.offerId} is for asset ${asset["@id"]}, not ${consumer.assetId}`);
  const policy = contractPolicyOf(ctx, provider["@id"], definition);
  if (rulesOf(consumer.policy) !== rulesOf(offerOf(provider, policy, asset["@id"], consumer.offerId))) {
    // EDC's provider words it so ("Contract agreement received. Validation failed: …")
    return rejected(
      `Policy in the contract request is not equal to the one in the contract offer ${consumer.offerId}`,
    );
  }
  return { ok: true as const, provider, definition, asset };
}

/** POST …/contractnegotiations: validates the ContractRequest, records it REQUESTED and starts the machine. */
export function requestNegotiation(
  ctx: LocalContext,
  consumerCtx: ParticipantRecord,
  body: Json,
): NegotiationRecord {
  const policy = body.policy as Json | undefined;
  if (typeof body.counterPartyAddress !== "string" || !body.counterPartyAddress)
    throw badRequest("counterPartyAddress is required", "counterPartyAddress");
  if (typeof body.protocol !== "string" || !body.protocol)
    throw badRequest("protocol is required", "protocol");
  if (!policy || typeof policy !== "object") throw badRequest("policy is required", "policy");
  if (typeof policy["@id"] !== "string" || !policy["@id"])
    throw badRequest("policy.@id (the offer id) is required", "policy/@id");
  if (typeof policy.target !== "string" || !policy.target)
    throw badRequest("policy.target (the asset id) is required", "policy/target");
  const now = ctx.now();
  const consumer: NegotiationRecord = {
    "@id": randomUUID(),
    "@type": "ContractNegotiation",
    type: "CONSUMER",
    protocol: body.protocol,
    state: "REQUESTED",
    counterPartyId: String(policy.assigner ?? ""),
    counterPartyAddress: body.counterPartyAddress,
    correlationId: "",
    assetId: policy.target,
    offerId: policy["@id"],
    policy,
    callbackAddresses: Array.isArray(body.callbackAddresses) ? (body.callbackAddresses as Json[]) : [],
    createdAt: now,
    stateTimestamp: now,
    participantContextId: consumerCtx["@id"],
  };
  const provider = contextOfDspAddress(ctx, consumer.counterPartyAddress);
  if (provider) {
    const mirror: NegotiationRecord = {
      ...consumer,
      "@id": randomUUID(),
      type: "PROVIDER",
      counterPartyId: consumerCtx.identity,
      counterPartyAddress: dspAddressOf(ctx, consumerCtx["@id"]),
      correlationId: consumer["@id"],
      participantContextId: provider["@id"],
    };
    consumer.correlationId = mirror["@id"];
    ctx.store.transaction(() => {
      save(ctx, consumer);
      save(ctx, mirror);
    });
  } else {
    save(ctx, consumer);
  }
  schedule(ctx, consumer["@id"]);
  return consumer;
}

function schedule(ctx: LocalContext, consumerId: string): void {
  ctx.scheduler.after(ctx.stepMs, () => step(ctx, consumerId));
}

/** One step of a consumer negotiation and its provider mirror. */
function step(ctx: LocalContext, consumerId: string): void {
  const consumer = ctx.store.get<NegotiationRecord>("negotiations", consumerId);
  if (!consumer || consumer.type !== "CONSUMER") return;
  const mirror = counterpart(ctx, consumer);
  const both = (state: NegotiationState, extra: Partial<NegotiationRecord> = {}) =>
    ctx.store.transaction(() => {
      transition(ctx, consumer, state, extra);
      if (mirror) transition(ctx, mirror, state, extra);
    });

  switch (consumer.state) {
    case "REQUESTED": {
      const verdict = evaluate(ctx, consumer);
      if (!verdict.ok) {
        both("TERMINATED", { errorDetail: verdict.reason });
        return;
      }
      const consumerCtx = ctx.store.get<ParticipantRecord>("participants", consumer.participantContextId);
      const agreement: AgreementRecord = {
        "@id": randomUUID(),
        "@type": "ContractAgreement",
        assetId: verdict.asset["@id"],
        consumerId: consumerCtx?.identity ?? consumer.participantContextId,
        providerId: verdict.provider.identity,
        contractSigningDate: Math.floor(ctx.now() / 1000),
        policy: {
          "@type": "Agreement",
          assigner: verdict.provider.identity,
          assignee: consumerCtx?.identity ?? consumer.participantContextId,
          target: verdict.asset["@id"],
          permission: (consumer.policy.permission as Json[] | undefined) ?? [],
          prohibition: [],
          obligation: [],
        },
        consumerContextId: consumer.participantContextId,
        providerContextId: verdict.provider["@id"],
      };
      ctx.store.transaction(() => {
        ctx.store.put("agreements", agreement["@id"], agreement.consumerContextId, agreement);
        both("AGREED", { contractAgreementId: agreement["@id"] });
      });
      break;
    }
    case "AGREED":
      both("VERIFIED");
      break;
    case "VERIFIED":
      both("FINALIZED");
      return;
    default:
      return;
  }
  schedule(ctx, consumerId);
}

/** POST …/contractnegotiations/{id}/terminate (context.ts processesIn): its reason becomes `errorDetail`. */
export function terminateNegotiation(ctx: LocalContext, contextId: string, id: string, body: Json): void {
  const reason = typeof body.reason === "string" && body.reason.trim() ? body.reason.trim() : undefined;
  terminate(ctx, contextId, id, reason ? { errorDetail: reason } : {});
}

/** After a restart: continue every consumer negotiation that had not reached a final state. */
export function resumeNegotiations(ctx: LocalContext): void {
  for (const n of ctx.store.list<NegotiationRecord>("negotiations")) {
    if (n.type === "CONSUMER" && (n.state === "REQUESTED" || n.state === "AGREED" || n.state === "VERIFIED"))
      schedule(ctx, n["@id"]);
  }
}
