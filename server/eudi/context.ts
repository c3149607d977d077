import type { AuditLog } from "../audit/log";
import type { SessionStore } from "../auth/sessions";
import type { Config } from "../config";
import type { GraphStore } from "../graph";
import type { Relational } from "../storage/relational";
import type { createIssuerTrust } from "./trust";
import type { RemoteVerifier } from "./remote-verifier";
import type { EudiStore } from "./store";

/** What the parts of the wallet sign-in share (service.ts builds it once). */

export interface EudiDeps {
  /** the relational store: wallet sign-in transactions, the embedded parties' keys */
  rel: Relational;
  audit: AuditLog;
  graph: GraphStore;
  sessions: SessionStore;
  config: Config;
  runtime: { internalOrigin: string | undefined };
}

export interface EudiContext {
  deps: EudiDeps;
  store: EudiStore;
  publicUrl: string;
  /** the embedded verifier's direct_post endpoint and its client_id (prefix redirect_uri) */
  responseUri: string;
  embeddedClientId: string;
  /** the external verifier (EUDI_VERIFIER_URL), when configured */
  remote: RemoteVerifier | undefined;
  trust: ReturnType<typeof createIssuerTrust>;
}
