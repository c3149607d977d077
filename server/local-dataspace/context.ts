import { DSP_VERSION, uriDecoded } from "../dataspace-protocol";
import type { SigningKey } from "./keys";
import type { ParticipantRecord } from "./models";
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

export const participantByDid = (ctx: LocalContext, did: string) =>
  ctx.store.list<ParticipantRecord>("participants").find((p) => p.identity === did);

/** A state change of a negotiation or transfer process: `save` of the record in `state` (with `extra`), stamped now. */
export const transitionBy =
  <T extends { state: string; stateTimestamp: number }>(save: (ctx: LocalContext, r: T) => void) =>
  (ctx: LocalContext, r: T, state: T["state"], extra: Partial<T> = {}): T => {
    const next = { ...r, ...extra, state, stateTimestamp: ctx.now() };
    save(ctx, next);
    return next;
  };
