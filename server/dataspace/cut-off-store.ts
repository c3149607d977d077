import type { Relational } from "../storage/relational";

/**
 * Where the cut-offs of revoked permits are kept (table `dataspace_permit_cutoffs`), pending until
 * every transfer of their agreements has ended; what is done with them is in cut-off.ts.
 */

const TABLE = "dataspace_permit_cutoffs";
export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 10 * 60_000;
/**
 * How long an attempt holds its cut-off (the default of createCutOffs): the recorder's first attempt, and
 * each attempt a timer claims. The attempt starts no connector call that could end after it (cut-off.ts),
 * so that no other instance's timer takes it up beside it; if the attempter crashes, any timer takes it
 * up after.
 */
export const ATTEMPT_LEASE_MS = 60_000;

export type CutOffs = Awaited<ReturnType<typeof createCutOffs>>;

export async function createCutOffs(rel: Relational, leaseMs = ATTEMPT_LEASE_MS) {
  await rel.migrate("dataspace-permit-cutoffs-1", async (m) => {
    await m.schema
      .createTable(TABLE)
      .addColumn("permit_id", "text", (c) => c.primaryKey())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("last_error", "text")
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
      .addColumn("done_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  });
  type Row = {
    permit_id: string;
    reason: string;
    attempts: number | string;
    last_error: string | null;
    next_attempt_at: number | string;
    done_at: number | string | null;
  };
  const toRow = (r: Row) => ({
    permitId: r.permit_id,
    reason: r.reason,
    attempts: Number(r.attempts),
    lastError: r.last_error,
    nextAttemptAt: Number(r.next_attempt_at),
    doneAt: r.done_at === null ? null : Number(r.done_at),
  });
  const get = async (permitId: string) => {
    const r = (await rel.db
      .selectFrom(TABLE)
      .selectAll()
      .where("permit_id", "=", permitId)
      .executeTakeFirst()) as Row | undefined;
    return r ? toRow(r) : undefined;
  };
  return {
    leaseMs,
    /** records the cut-off of a permit (once: a second revocation keeps the first reason) */
    async record(permitId: string, reason: string) {
      const now = Date.now();
      await rel.db
        .insertInto(TABLE)
        .values({
          permit_id: permitId,
          reason,
          attempts: 0,
          last_error: null,
          // leased to the recorder's own first attempt: due at once, a timer could attempt it beside the recorder
          next_attempt_at: now + leaseMs,
          done_at: null,
          created_at: now,
        })
        .onConflict((oc) => oc.column("permit_id").doNothing())
        .execute();
    },
    get,
    /**
     * claims the cut-offs not yet done whose next attempt is due at `now`: each is leased to the caller
     * until `now + leaseMs`, and a cut-off that another instance claimed at the same time is left to it
     */
    async claimDue(now: number) {
      const rows = (await rel.db
        .selectFrom(TABLE)
        .selectAll()
        .where("done_at", "is", null)
        .where("next_attempt_at", "<=", now)
        .orderBy("next_attempt_at", "asc")
        .limit(20)
        .execute()) as Row[];
      const claimed: ReturnType<typeof toRow>[] = [];
      for (const r of rows) {
        // a claim without a row lock: it moves the due time only if nobody has moved it since the read
        const { numUpdatedRows } = await rel.db
          .updateTable(TABLE)
          .set({ next_attempt_at: now + leaseMs })
          .where("permit_id", "=", r.permit_id)
          .where("done_at", "is", null)
          .where("next_attempt_at", "=", r.next_attempt_at)
          .executeTakeFirst();
        if (Number(numUpdatedRows) === 1) claimed.push(toRow(r));
      }
      return claimed;
    },
    /**
     * one attempt's outcome: done, or the error and when to try again (after the backoff, or at once when
     * `leftOver`: the attempt only ran out of its lease, decision 0091)
     */
    async attempted(permitId: string, error: string | null, now: number, leftOver = false) {
      const row = await get(permitId);
      const attempts = (row?.attempts ?? 0) + 1;
      const wait = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1));
      await rel.db
        .updateTable(TABLE)
        .set({
          attempts,
          last_error: error,
          next_attempt_at: error && !leftOver ? now + wait : now,
          done_at: error ? null : now,
        })
        .where("permit_id", "=", permitId)
        .execute();
    },
  };
}
