import { DSP_VERSION, uriDecoded } from "../dataspace-protocol";
import type { SigningKey } from "./keys";
import { conflict, notFound } from "./http";
import type { NegotiationRecord, ParticipantRecord, TransferRecord } from "./models";
import type { Scheduler } from "./scheduler";
import type { LocalStore } from "./store";

/** What the parts of the local dataspace share. */
export interface LocalContext {
  store: LocalStore;
  scheduler: Scheduler;
  /** `http://127.0.0.1:<port>`, known once the server listens */
  baseUrl: string;
  /** delay between two state-machine steps */
  stepMs: number;
  /** host part of the DIDs provisioned for new tenants (`did:web:<host>:<slug>`) */
  didHost: string;
  keys: { tokens: SigningKey; dataPlane: SigningKey; issuer: SigningKey };
  issuer: { contextId: string; did: string };
  graphBridgeUrl: string;
  /** the records of an asset (the provider's context id tells whose, the agreement under which) */
  dataSource: (assetId: string, providerContextId?: string, agreementId?: string) => Promise<unknown>;
  now(): number;
  log(e: unknown): void;
}

export const DSP_PATH = "/api/dsp";

/** the store key of a participant context's asset, policy or contract definition */
export const ctxKey = (owner: string, id: string) => `${owner}/${id}`;

/** The DSP 2025-1 address of a participant context of this dataspace. */
export const dspAddressOf = (ctx: LocalContext, contextId: string) =>
  `${ctx.baseUrl}${DSP_PATH}/${encodeURIComponent(contextId)}/${DSP_VERSION}`;

/**
 * The participant context a DSP address points at, when it is one of this dataspace's:
 * `<base>/api/dsp/<context>/2025-1` (any host of ours; the port may differ after a restart).
 */
export function contextOfDspAddress(ctx: LocalContext, address: string): ParticipantRecord | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  const own = new URL(ctx.baseUrl);
  if (url.host !== own.host && !["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return undefined;
  const m = new RegExp(`^${DSP_PATH}/([^/]+)/${DSP_VERSION}/?$`).exec(url.pathname);
  return m ? ctx.store.get<ParticipantRecord>("participants", uriDecoded(m[1])) : undefined;
}

/** a provider's refusal of a request, the reason its `errorDetail` */
export const rejected = (reason: string) => ({ ok: false as const, reason });

export const participantByDid = (ctx: LocalContext, did: string) =>
  ctx.store.list<ParticipantRecord>("participants").find((p) => p.identity === did);

/**
 * The negotiations or the transfer processes of this dataspace, each side's record in `table`: `save`,
 * `transition` (the record in `state` with `extra`, stamped now, saved), `counterpart` (the other side's
 * record, when there is one) and `terminate`, as EDC answers `POST …/{id}/terminate`: 404 for a process
 * the context does not hold, 409 for one that has ended (a state of `ended`); else it and the
 * counter-party's side of it are TERMINATED with `extra` (EDC passes TERMINATING on the way).
 */
export function processesIn<T extends NegotiationRecord | TransferRecord>(
  table: "negotiations" | "transfers",
  type: T["@type"],
  command: string,
  ended: readonly T["state"][],
) {
  const save = (ctx: LocalContext, r: T): void =>
    void ctx.store.put(table, r["@id"], r.participantContextId, r);
  const transition = (ctx: LocalContext, r: T, state: T["state"], extra: Partial<T> = {}): T => {
    const next = { ...r, ...extra, state, stateTimestamp: ctx.now() };
    save(ctx, next);
    return next;
  };
  const counterpart = (ctx: LocalContext, r: T) =>
    r.correlationId ? ctx.store.get<T>(table, r.correlationId) : undefined;
  function terminate(ctx: LocalContext, contextId: string, id: string, extra: Partial<T>): void {
    const r = ctx.store.get<T>(table, id);
    if (!r || r.participantContextId !== contextId)
      throw notFound(`Object of type ${type} with ID=${id} was not found`);
    if (ended.includes(r.state))
      throw conflict(`Could not execute ${command} on ${type} with ID [${id}] because it's ${r.state}`);
    ctx.store.transaction(() => {
      transition(ctx, r, "TERMINATED", extra);
      const other = counterpart(ctx, r);
      if (other && !ended.includes(other.state)) transition(ctx, other, "TERMINATED", extra);
    });
  }
  return { save, transition, counterpart, terminate };
}
