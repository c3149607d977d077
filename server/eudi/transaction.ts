import { base64url } from "jose";
import type { EudiRow } from "./store";

/** A wallet sign-in transaction: its life times, its states and the answers the browser gets. */

export const EUDI_BINDING_COOKIE = "app-auth.eudi-binding";
export const EUDI_TTL_MS = 5 * 60 * 1000;
/** how long after completion the starting browser may still collect its session */
export const EUDI_CLAIM_WINDOW_MS = 2 * 60 * 1000;
export const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

export type EudiStatus = "pending" | "completed" | "expired" | "failed";

export interface StartResult {
  sid: string;
  status: "pending";
  walletLink: string;
  qr: string;
  expiresAt: string;
  verifier: "embedded" | "remote";
}

export interface StatusResult {
  sid: string;
  status: EudiStatus;
  reason?: string;
  expiresAt: string;
  /** completed only: issued (this response carries the Set-Cookie), already-issued, or not-this-browser */
  session?: "issued" | "already-issued" | "not-this-browser" | "claim-window-passed";
  redirectTo?: string;
  user?: { name: string; patientId: string };
}

export const random = (bytes: number) => base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));

export function stateOf(row: EudiRow, now: number): EudiStatus {
  if (row.status === "completed") return "completed";
  if (row.status === "failed") return "failed";
  return now >= row.expires_at ? "expired" : "pending";
}
