import { describeUpstream } from "./failures";
import { record, settle, type DataspaceRuntime } from "./runtime";
import { isConflict, isNotFound } from "./upstream-http";

export { createCutOffs, RETRY_BASE_MS } from "./cut-off-store";

/**
 * A revoked data permit cuts its agreements off at the connector (issue 37): every transfer process
 * of an agreement the permit backs that has not ended is terminated through the connector's management
 * API (`POST …/transferprocesses/{id}/terminate`, with the revocation's reason), which tells the
 * provider over DSP; the hub already refuses new transfers and pulls under the permit
 * (transfers.ts). Nothing is dropped silently:
 * - the cut-off is written first (table `dataspace_permit_cutoffs`), then attempted;
 * - a transfer that could not be terminated (connector down, 5xx, time-out) leaves the cut-off
 *   pending with its attempts and last error; `retryDueCutOffs` takes it up again after a backoff
 *   (RETRY_BASE_MS doubling up to RETRY_MAX_MS), on every instance's timer, until each transfer is
 *   ended; a 409 (already ended) counts as ended; one instance claims each attempt (cut-off-store.ts);
 * - an attempt holds its cut-off on a lease and starts no connector call that could end after it (one
 *   call's time-out, UPSTREAM_TIMEOUT_MS, must be left): what it could not get to is left pending, due at
 *   once when nothing failed, and the next attempt resumes with what has not ended (decision 0091);
 * - every termination and every failed one is in the audit log (`transfer.terminate`).
 * A negotiation the permit backs that is still running is terminated too
 * (`POST …/contractnegotiations/{id}/terminate`, `negotiation.terminate` on the audit log), so that the
 * connector does not finalise an agreement under a revoked permit (decision 0065).
 */

/** transfer states after which there is nothing left to terminate (EDC's final and ending states) */
const ENDED = new Set([
  "COMPLETING",
  "COMPLETED",
  "TERMINATING",
  "TERMINATED",
  "DEPROVISIONING",
  "DEPROVISIONING_REQUESTED",
  "DEPROVISIONED",
]);

/** negotiation states after which there is nothing left to terminate */
const NEGOTIATION_ENDED = new Set(["FINALIZED", "TERMINATING", "TERMINATED"]);

export interface CutOffOutcome {
  permitId: string;
  /** the negotiations still running that this attempt terminated */
  terminatedNegotiations: { participantId: string; negotiationId: string }[];
  /** the transfer processes terminated by this attempt */
  terminated: { participantId: string; transferId: string }[];
  /** what could not be done; empty when the cut-off is complete */
  failed: { participantId: string; transferId?: string; negotiationId?: string; error: string }[];
}

/** one attempt of a cut-off, leased to it until `leasedUntil` */
interface Cut {
  permitId: string;
  reason: string;
  actor: string;
  outcome: CutOffOutcome;
  leasedUntil: number;
}

/** stops an attempt before a call that could end after its lease: the rest is the next attempt's */
class LeaseEnding extends Error {
  constructor(readonly participantId: string) {
    super("the attempt's lease ends before one more call could: the rest is left to the next attempt");
  }
}

/** before each connector call of an attempt: there must be one call's time-out left in its lease */
function withinLease(rt: DataspaceRuntime, cut: Cut, participantId: string): void {
  if (Date.now() + rt.timeoutMs > cut.leasedUntil) throw new LeaseEnding(participantId);
}

/**
 * Ends a negotiation still running or a transfer process under a revoked permit
 * (`…/contractnegotiations/{id}/terminate`, `…/transferprocesses/{id}/terminate`), audited.
 */
async function terminate(
  rt: DataspaceRuntime,
  kind: "negotiation" | "transfer",
  participantId: string,
  id: string,
  cut: Cut,
): Promise<void> {
  const { outcome } = cut;
  withinLease(rt, cut, participantId);
  const done = await settle(
    kind === "negotiation"
      ? rt.connector.terminateNegotiation(participantId, id, cut.reason)
      : rt.connector.terminateTransfer(participantId, id, cut.reason),
  );
  // 409: it ended (finalised or terminated) between the read (or the list) and the call; 404: it is
  // gone. Either way nothing is left to cut.
  const ended = endedAnyway(done);
  const idKey = kind === "negotiation" ? "negotiationId" : "transferId";
  if (done.ok && kind === "negotiation")
    outcome.terminatedNegotiations.push({ participantId, negotiationId: id });
  else if (done.ok) outcome.terminated.push({ participantId, transferId: id });
  else if (!ended) outcome.failed.push({ participantId, [idKey]: id, error: describeUpstream(done.error) });
  await record(rt, {
    action: `${kind}.terminate`,
    actor: cut.actor,
    target: `${participantId}: ${id} (data permit ${cut.permitId})`,
    outcome: ended ? "success" : "failure",
  });
}

/** a terminate call that succeeded, or found the process ended (409) or gone (404) */
const endedAnyway = (done: Awaited<ReturnType<typeof settle>>) =>
  done.ok || isConflict(done.error) || isNotFound(done.error);

/**
 * Records the cut-off of `permitId` and makes its first attempt (awaited: the revocation answers once
 * the connector has been asked; a failure leaves the cut-off pending for retryDueCutOffs).
 */
export async function cutOffPermit(
  rt: DataspaceRuntime,
  permitId: string,
  reason: string,
  actor = "system",
): Promise<CutOffOutcome> {
  // taken before the row is written: the lease the row is written with ends no sooner
  const leasedUntil = Date.now() + rt.cutOffs.leaseMs;
  await rt.cutOffs.record(permitId, reason);
  return attempt(rt, permitId, reason, leasedUntil, actor);
}

/** takes up the cut-offs whose next attempt is due (each instance's timer, createDataspace) */
export async function retryDueCutOffs(rt: DataspaceRuntime): Promise<CutOffOutcome[]> {
  const out: CutOffOutcome[] = [];
  const now = Date.now();
  for (const row of await rt.cutOffs.claimDue(now))
    out.push(await attempt(rt, row.permitId, row.reason, now + rt.cutOffs.leaseMs));
  return out;
}

async function attempt(
  rt: DataspaceRuntime,
  permitId: string,
  reason: string,
  leasedUntil: number,
  actor = "system",
): Promise<CutOffOutcome> {
  const outcome: CutOffOutcome = { permitId, terminatedNegotiations: [], terminated: [], failed: [] };
  let leftOver = false;
  try {
    await endAll(rt, { permitId, reason, actor, outcome, leasedUntil });
  } catch (e) {
    if (!(e instanceof LeaseEnding)) throw e;
    // only out of time, nothing failed: the rest is due at once, not after a backoff
    leftOver = outcome.failed.length === 0;
    outcome.failed.push({ participantId: e.participantId, error: e.message });
  }
  const error = outcome.failed.length
    ? outcome.failed
        .map((f) => `${f.participantId}/${f.transferId ?? f.negotiationId ?? "-"}: ${f.error}`)
        .join("; ")
    : null;
  await rt.cutOffs.attempted(permitId, error, Date.now(), leftOver);
  if (error)
    console.error(`[dataspace] cut-off of data permit ${permitId} incomplete, retried later:`, error);
  return outcome;
}

/** ends the negotiations still running and the open transfers under the permit, within the lease */
async function endAll(rt: DataspaceRuntime, cut: Cut): Promise<void> {
  const { outcome } = cut;
  const byParticipant = new Map<string, Set<string>>();
  for (const row of await rt.contractPermits.byPermit(cut.permitId)) {
    let agreement = row.agreementId;
    withinLease(rt, cut, row.participantId);
    const n = await settle(rt.connector.getNegotiation(row.participantId, row.negotiationId));
    if (n.ok) {
      // still running: ended at the connector, so that no agreement comes of it (decision 0065)
      if (!NEGOTIATION_ENDED.has(String(n.value.state)))
        await terminate(rt, "negotiation", row.participantId, row.negotiationId, cut);
      const id = n.value.contractAgreementId ?? n.value.contractId;
      if (!agreement && typeof id === "string" && id) {
        agreement = id;
        await rt.contractPermits.setAgreement(row.negotiationId, agreement);
      }
    } else if (!isNotFound(n.error)) {
      // a negotiation the connector no longer holds has nothing left to end; any other failure is retried
      outcome.failed.push({ participantId: row.participantId, error: describeUpstream(n.error) });
    }
    // not agreed (yet): no transfer can rest on it, and the hub refuses new ones under the permit
    if (!agreement) continue;
    const set = byParticipant.get(row.participantId) ?? new Set<string>();
    set.add(agreement);
    byParticipant.set(row.participantId, set);
  }
  for (const [participantId, agreements] of byParticipant) {
    withinLease(rt, cut, participantId);
    const listed = await settle(rt.connector.listTransfers(participantId));
    if (!listed.ok) {
      outcome.failed.push({ participantId, error: describeUpstream(listed.error) });
      continue;
    }
    const open = listed.value.filter(
      (t) => typeof t.contractId === "string" && agreements.has(t.contractId) && !ENDED.has(String(t.state)),
    );
    for (const t of open) await terminate(rt, "transfer", participantId, String(t["@id"]), cut);
  }
}
