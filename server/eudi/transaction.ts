import { z } from "zod";
import type { EudiRow } from "./store";

/** A wallet sign-in transaction: its life times, its states and the answers the browser gets. */

export const EUDI_BINDING_COOKIE = "app-auth.eudi-binding";
export const EUDI_TTL_MS = 5 * 60 * 1000;
/** how long after completion the starting browser may still collect its session */
export const EUDI_CLAIM_WINDOW_MS = 2 * 60 * 1000;
export const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

/** the 201 of POST /api/auth/eudi/start */
export const startResult = z.object({
  sid: z.string().describe("the sign-in's id, for the status"),
  status: z.literal("pending"),
  walletLink: z.string().describe("the openid4vp:// link the wallet opens"),
  qr: z.string().describe("the wallet link as a QR code (an SVG data URL)"),
  expiresAt: z.string().describe("ISO 8601 time"),
  verifier: z.enum(["embedded", "remote"]),
});
export type StartResult = z.infer<typeof startResult>;

/** GET /api/auth/eudi/status's answer */
export const statusResult = z.object({
  sid: z.string(),
  status: z.enum(["pending", "completed", "expired", "failed"]),
  reason: z.string().optional().describe("why it failed or expired, in words"),
  expiresAt: z.string().describe("ISO 8601 time"),
  session: z
    .enum(["issued", "already-issued", "not-this-browser", "claim-window-passed"])
    .optional()
    .describe(
      "completed only: issued (this response carries the Set-Cookie), already issued, or not to this browser",
    ),
  redirectTo: z.string().optional().describe("issued only: where to go now"),
  user: z.object({ name: z.string(), patientId: z.string() }).optional().describe("issued only"),
});
export type StatusResult = z.infer<typeof statusResult>;

export function stateOf(row: EudiRow, now: number): StatusResult["status"] {
  return row.status === "pending" && now >= row.expires_at ? "expired" : row.status;
}
