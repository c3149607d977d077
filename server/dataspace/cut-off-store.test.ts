import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { ATTEMPT_LEASE_MS, createCutOffs } from "./cut-off-store";

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe.each(storeDialects())("permit cut-offs on %s", (dialect) => {
  it("a recorded cut-off is its recorder's first: no timer takes it up until the lease ends", async () => {
    opened = await openTestStore(dialect);
    const cutOffs = await createCutOffs(opened.rel);
    const before = Date.now();
    await cutOffs.record("PERMIT-1", "revoked");
    expect(await cutOffs.claimDue(Date.now())).toEqual([]);
    const row = await cutOffs.get("PERMIT-1");
    expect(row).toMatchObject({ attempts: 0, doneAt: null });
    expect(row!.nextAttemptAt).toBeGreaterThanOrEqual(before + ATTEMPT_LEASE_MS);
    // the recorder never settled it (it crashed, say): due once the lease has ended
    expect((await cutOffs.claimDue(row!.nextAttemptAt)).map((r) => r.permitId)).toEqual(["PERMIT-1"]);
    // settled by that attempt: never due again
    await cutOffs.attempted("PERMIT-1", null, Date.now());
    expect(await cutOffs.claimDue(Date.now() + RETRY_MAX)).toEqual([]);
  });

  it("a due cut-off is claimed by one timer: the other instance's, at the same moment, gets none", async () => {
    opened = await openTestStore(dialect);
    const cutOffs = await createCutOffs(opened.rel);
    await cutOffs.record("PERMIT-1", "revoked");
    await cutOffs.record("PERMIT-2", "revoked");
    await cutOffs.attempted("PERMIT-2", "connector down", Date.now());
    const at = Date.now() + RETRY_MAX;
    const [one, other] = await Promise.all([cutOffs.claimDue(at), cutOffs.claimDue(at)]);
    const ids = (rows: { permitId: string }[]) => rows.map((r) => r.permitId).sort();
    expect([...ids(one), ...ids(other)].sort()).toEqual(["PERMIT-1", "PERMIT-2"]);
    // claimed: leased to its claimer's attempt, not due again until the lease ends
    expect(await cutOffs.claimDue(at + 1)).toEqual([]);
    expect(ids(await cutOffs.claimDue(at + ATTEMPT_LEASE_MS))).toEqual(["PERMIT-1", "PERMIT-2"]);
  });
});

const RETRY_MAX = 60 * 60_000;
