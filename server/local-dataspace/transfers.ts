import { randomUUID } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { DEFAULT_TRANSFER_TYPE, HTTP_ENDPOINT_TYPE, TRANSFER_TYPES } from "../dataspace-protocol";
import { contextOfDspAddress, dspAddressOf, processesIn, rejected, type LocalContext } from "./context";
import { badRequest, HttpError, notFound, unauthorized, type Router } from "./http";
import type {
  AgreementRecord,
  EdrRecord,
  Json,
  ParticipantRecord,
  TransferRecord,
  TransferState,
} from "./models";

/**
 * Transfer processes of the local dataspace and its data plane. A pull transfer goes REQUESTED →
 * STARTED with an endpoint data reference (EDR: the data plane's endpoint and a signed token) and
 * stays STARTED, pulled as often as the token is valid, until it is terminated (as EDC keeps it:
 * the connector contract's pull case); a push transfer sends the data to the destination and
 * completes. A transfer without a valid agreement is TERMINATED.
 */

const EDR_TOKEN_AUDIENCE = "local-data-plane";
const EDR_TOKEN_LIFETIME = "10m";
const PUSH_TIMEOUT_MS = 5_000;

const { save, transition, terminate } = processesIn<TransferRecord>(
  "transfers",
  "TransferProcess",
  "TerminateTransferCommand",
  ["COMPLETED", "TERMINATED"],
);

/** POST …/transferprocesses: validates the TransferRequest, records it REQUESTED and starts the machine. */
export function requestTransfer(
  ctx: LocalContext,
  consumerCtx: ParticipantRecord,
  body: Json,
): TransferRecord {
  for (const field of ["contractId", "counterPartyAddress", "protocol"] as const) {
    if (typeof body[field] !== "string" || !body[field]) throw badRequest(`${field} is required`, field);
  }
  const transferType =
    typeof body.transferType === "string" && body.transferType ? body.transferType : DEFAULT_TRANSFER_TYPE;
  if (!(TRANSFER_TYPES as readonly string[]).includes(transferType)) {
    throw badRequest(
      `transferType ${transferType} is not supported (${TRANSFER_TYPES.join(", ")})`,
      "transferType",
    );
  }
  const now = ctx.now();
  const t: TransferRecord = {
    "@id": randomUUID(),
    "@type": "TransferProcess",
    type: "CONSUMER",
    protocol: String(body.protocol),
    state: "REQUESTED",
    contractId: String(body.contractId),
    assetId: typeof body.assetId === "string" ? body.assetId : "",
    transferType,
    counterPartyAddress: String(body.counterPartyAddress),
    correlationId: "",
    dataDestination: (body.dataDestination as Json | undefined) ?? { type: "HttpProxy" },
    createdAt: now,
    stateTimestamp: now,
    participantContextId: consumerCtx["@id"],
  };
  save(ctx, t);
  schedule(ctx, t["@id"]);
  return t;
}

function schedule(ctx: LocalContext, id: string): void {
  ctx.scheduler.after(ctx.stepMs, () => start(ctx, id));
}

function verdict(ctx: LocalContext, t: TransferRecord) {
  const agreement = ctx.store.get<AgreementRecord>("agreements", t.contractId);
  if (!agreement || agreement.consumerContextId !== t.participantContextId)
    return rejected(`No contract agreement ${t.contractId} exists for this consumer`);
  const provider = contextOfDspAddress(ctx, t.counterPartyAddress);
  if (!provider || provider["@id"] !== agreement.providerContextId)
    return rejected(
      `Agreement ${t.contractId} was not made with the participant at ${t.counterPartyAddress}`,
    );
  if (t.assetId && t.assetId !== agreement.assetId)
    return rejected(`Agreement ${t.contractId} covers asset ${agreement.assetId}, not ${t.assetId}`);
  return { ok: true as const, agreement };
}

async function start(ctx: LocalContext, id: string): Promise<void> {
  const consumer = ctx.store.get<TransferRecord>("transfers", id);
  if (!consumer || consumer.type !== "CONSUMER" || consumer.state !== "REQUESTED") return;
  const v = verdict(ctx, consumer);
  if (!v.ok) {
    transition(ctx, consumer, "TERMINATED", { errorDetail: v.reason });
    return;
  }
  const { agreement } = v;
  const consumerCtx = ctx.store.get<ParticipantRecord>("participants", consumer.participantContextId);
  const mirror: TransferRecord = {
    ...consumer,
    "@id": randomUUID(),
    type: "PROVIDER",
    assetId: agreement.assetId,
    counterPartyId: consumerCtx?.identity,
    counterPartyAddress: dspAddressOf(ctx, consumer.participantContextId),
    correlationId: consumer["@id"],
    participantContextId: agreement.providerContextId,
    state: "STARTED",
    stateTimestamp: ctx.now(),
  };
  const startedBy = {
    assetId: agreement.assetId,
    correlationId: mirror["@id"],
    counterPartyId: agreement.providerId,
  };
  if (consumer.transferType === "HttpData-PULL") {
    const edr: EdrRecord = {
      transferProcessId: consumer["@id"],
      agreementId: agreement["@id"],
      assetId: agreement.assetId,
      providerId: agreement.providerId,
      participantContextId: consumer.participantContextId,
      createdAt: ctx.now(),
    };
    ctx.store.transaction(() => {
      ctx.store.put("edrs", edr.transferProcessId, edr.participantContextId, edr);
      save(ctx, mirror);
      transition(ctx, consumer, "STARTED", startedBy);
    });
    return;
  }
  // push: send the data to the consumer's destination, then complete
  const started = transition(ctx, consumer, "STARTED", startedBy);
  save(ctx, mirror);
  const baseUrl =
    typeof consumer.dataDestination.baseUrl === "string" ? consumer.dataDestination.baseUrl : undefined;
  try {
    if (!baseUrl || !/^https?:\/\//.test(baseUrl))
      throw new Error("a push transfer needs a dataDestination with an http(s) baseUrl");
    const data = await ctx.dataSource(agreement.assetId, agreement.providerContextId, agreement["@id"]);
    // terminated while the source was read: nothing more leaves
    if (ctx.store.get<TransferRecord>("transfers", started["@id"])?.state !== "STARTED") return;
    const res = await fetch(baseUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(data),
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`the destination answered HTTP ${res.status}`);
    if (ctx.scheduler.closed) return;
    endIfStarted(ctx, started["@id"], "COMPLETED");
    endIfStarted(ctx, mirror["@id"], "COMPLETED");
  } catch (e) {
    if (ctx.scheduler.closed) return;
    const reason = `Push to the data destination failed: ${e instanceof Error ? e.message : String(e)}`;
    endIfStarted(ctx, started["@id"], "TERMINATED", reason);
    endIfStarted(ctx, mirror["@id"], "TERMINATED", reason);
  }
}

/** a push ends its transfer only if nothing else (a termination) has ended it meanwhile */
function endIfStarted(ctx: LocalContext, id: string, state: TransferState, errorDetail?: string): void {
  const now = ctx.store.get<TransferRecord>("transfers", id);
  if (now?.state === "STARTED") transition(ctx, now, state, errorDetail ? { errorDetail } : {});
}

/**
 * POST …/transferprocesses/{id}/terminate (context.ts processesIn): a reason is required (400), it
 * becomes `errorDetail`; the EDR answers no more (endpointDataReference, the data plane: 404 and 409).
 */
export function terminateTransfer(ctx: LocalContext, contextId: string, id: string, body: Json): void {
  const reason = typeof body.reason === "string" ? body.reason.trim() : "";
  if (!reason)
    throw badRequest(
      "mandatory value 'https://w3id.org/edc/v0.0.1/ns/reason' is missing or it is blank",
      "https://w3id.org/edc/v0.0.1/ns/reason",
    );
  terminate(ctx, contextId, id, { errorDetail: reason });
}

export function resumeTransfers(ctx: LocalContext): void {
  for (const t of ctx.store.list<TransferRecord>("transfers")) {
    if (t.type === "CONSUMER" && t.state === "REQUESTED") schedule(ctx, t["@id"]);
  }
}

export const dataPlaneUrl = (ctx: LocalContext, transferId: string) =>
  `${ctx.baseUrl}/public/${encodeURIComponent(transferId)}`;

/** The EDR of a started pull transfer, with a freshly signed access token for the data plane. */
export async function endpointDataReference(
  ctx: LocalContext,
  contextId: string,
  transferId: string,
): Promise<Json> {
  const edr = ctx.store.get<EdrRecord>("edrs", transferId);
  const transfer = ctx.store.get<TransferRecord>("transfers", transferId);
  if (
    !edr ||
    edr.participantContextId !== contextId ||
    !transfer ||
    (transfer.state !== "STARTED" && transfer.state !== "COMPLETED")
  ) {
    throw notFound(`No endpoint data reference for transfer process ${transferId}`);
  }
  const k = ctx.keys.dataPlane;
  const token = await new SignJWT({ agreement: edr.agreementId, asset: edr.assetId })
    .setProtectedHeader({ alg: k.alg, kid: k.kid, typ: "JWT" })
    .setIssuer(edr.providerId)
    .setAudience(EDR_TOKEN_AUDIENCE)
    .setSubject(transferId)
    .setIssuedAt()
    .setExpirationTime(EDR_TOKEN_LIFETIME)
    .setJti(randomUUID())
    .sign(k.privateKey);
  return {
    "@type": "DataAddress",
    type: HTTP_ENDPOINT_TYPE,
    endpointType: HTTP_ENDPOINT_TYPE,
    endpoint: dataPlaneUrl(ctx, transferId),
    authType: "bearer",
    authorization: token,
    transferProcessId: transferId,
    agreementId: edr.agreementId,
    assetId: edr.assetId,
  };
}

/** The data plane's public endpoint: `GET /public/{transferId}` with the EDR token. */
export function registerDataPlane(router: Router, ctx: LocalContext): void {
  router.add(
    "GET",
    "/public/:transferId",
    async (req) => {
      const header = String(req.headers.authorization ?? "");
      const token = header.startsWith("Bearer ") ? header.slice(7) : header;
      if (!token) throw unauthorized("the endpoint data reference's token is required in Authorization");
      let subject: string | undefined;
      try {
        const { payload } = await jwtVerify(token, ctx.keys.dataPlane.publicKey, {
          audience: EDR_TOKEN_AUDIENCE,
        });
        subject = payload.sub;
      } catch {
        throw unauthorized("invalid or expired data plane token");
      }
      if (subject !== req.params.transferId)
        throw new HttpError(403, "the token was issued for another transfer", "NotAuthorized");
      const consumer = ctx.store.get<TransferRecord>("transfers", req.params.transferId);
      if (!consumer || (consumer.state !== "STARTED" && consumer.state !== "COMPLETED")) {
        throw new HttpError(409, "the transfer is not started", "InvalidState");
      }
      const agreement = ctx.store.get<AgreementRecord>("agreements", consumer.contractId);
      const data = await ctx.dataSource(consumer.assetId, agreement?.providerContextId, consumer.contractId);
      return { body: data ?? null };
    },
    { authenticated: false },
  );
}
