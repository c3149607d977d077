import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createCutOffs, RETRY_BASE_MS } from "./cut-off-store";

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
    expect(await cutOffs.due(Date.now())).toEqual([]);
    const row = await cutOffs.get("PERMIT-1");
    expect(row).toMatchObject({ attempts: 0, doneAt: null });
    expect(row!.nextAttemptAt).toBeGreaterThanOrEqual(before + RETRY_BASE_MS);
    // the recorder never settled it (it crashed, say): due once the lease has ended
    expect((await cutOffs.due(row!.nextAttemptAt)).map((r) => r.permitId)).toEqual(["PERMIT-1"]);
    // settled by its first attempt: never due again
    await cutOffs.attempted("PERMIT-1", null, Date.now());
    expect(await cutOffs.due(Date.now() + RETRY_MAX)).toEqual([]);
  });
});

const RETRY_MAX = 60 * 60_000;
