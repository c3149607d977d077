import { walletUser } from "./user";
import type { EudiContext } from "./context";
import { matchPatient, PID_QUERY_ID, PID_VCTS, pidFromClaims } from "./pid";
import { PresentationError, verifySdJwtVcPresentation } from "./sd-jwt";
import type { EudiRow } from "./store";
import type { AuditInput } from "../audit/model";
import type { Sql } from "../storage/relational";

/**
 * A wallet's answer to a transaction: the PID presentation is taken out of the vp_token, verified
 * (trusted issuer, signature, expiry, disclosures, key binding with this transaction's nonce and
 * our client_id) and matched to exactly one patient record; the transaction is completed or failed.
 */
export function createPresentationCheck(ctx: EudiContext) {
  const { rel, audit, graph } = ctx.deps;
  const { store, trust } = ctx;

  function extractPresentation(vpToken: unknown): string {
    let token: unknown = vpToken;
    if (typeof token === "string" && token.trim().startsWith("{")) {
      try {
        token = JSON.parse(token);
      } catch {
        throw new PresentationError("invalid_vp_token", "vp_token is not valid JSON");
      }
    }
    if (token && typeof token === "object" && !Array.isArray(token)) {
      const entry = (token as Record<string, unknown>)[PID_QUERY_ID];
      if (entry === undefined)
        throw new PresentationError(
          "invalid_vp_token",
          `vp_token has no presentation for the credential query "${PID_QUERY_ID}"`,
        );
      token = entry;
    }
    if (Array.isArray(token)) {
      if (token.length !== 1)
        throw new PresentationError("invalid_vp_token", "Exactly one PID presentation is expected");
      token = token[0];
    }
    if (typeof token !== "string" || !token)
      throw new PresentationError("invalid_vp_token", "vp_token holds no SD-JWT presentation");
    return token;
  }

  /** a move of the transaction and, when this call made it (`move` answers true), its audit entry: one commit */
  const recorded = (
    move: (tx: Sql) => Promise<boolean>,
    entry: Pick<AuditInput, "actor" | "target" | "outcome">,
  ) =>
    rel.tx(async (tx) => {
      if (await move(tx)) await audit.append({ action: "eudi.presentation", ...entry, kind: "eudi" }, { tx });
    });

  /** Fails a pending transaction with the reason the browser shows, audited once (the first to fail it). */
  async function refuse(row: EudiRow, reason: string, outcome: string, now: number): Promise<void> {
    const target = `eudi:${row.sid.slice(0, 8)}`;
    await recorded((tx) => store.fail(row.sid, reason, now, tx), { actor: "wallet", target, outcome });
  }

  /** Verifies a wallet's vp_token for a transaction and completes or fails it. */
  async function settle(
    row: EudiRow,
    vpToken: unknown,
  ): Promise<{ ok: true } | { ok: false; invalid: boolean; reason: string }> {
    const now = Date.now();
    try {
      const presentation = extractPresentation(vpToken);
      const verified = await verifySdJwtVcPresentation(presentation, {
        resolveIssuerKey: trust.resolve,
        audience: row.client_id,
        nonce: row.nonce,
        expectedVct: PID_VCTS,
      });
      const pid = pidFromClaims(verified.claims);
      const match = await matchPatient(graph, pid);
      if (match.kind !== "match") {
        const reason =
          match.kind === "none"
            ? "No patient record matches the name and date of birth your wallet presented. Wallet sign-in works only for patients whose record is held here: sign in another way or ask your care provider."
            : "More than one patient record matches the name and date of birth your wallet presented, so we cannot tell which one is yours. Wallet sign-in is refused: please contact your care provider.";
        await refuse(
          row,
          reason,
          `refused: ${match.kind === "none" ? "no matching patient" : "ambiguous match"}`,
          now,
        );
        return { ok: false, invalid: false, reason };
      }
      const user = walletUser(match.patient, pid);
      await recorded((tx) => store.complete(row.sid, match.patient.id, JSON.stringify(user), now, tx), {
        actor: user.username,
        target: match.patient.id,
        outcome: `verified PID from ${verified.issuer}`,
      });
      return { ok: true };
    } catch (e) {
      if (!(e instanceof PresentationError)) throw e;
      const reason = `Your wallet's presentation was refused: ${e.message}.`;
      await refuse(row, reason, `refused: ${e.code}`, now);
      return { ok: false, invalid: true, reason };
    }
  }

  return { settle, refuse };
}
