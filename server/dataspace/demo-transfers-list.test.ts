import { afterEach, describe, expect, it, vi } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createDemoTransferStore, DEMO_TRANSFERS_TOPIC } from "./demo-records";

const input = (participantId: string) => ({
  participantId,
  contractId: "agreement-fhir-demo-001",
  assetId: "asset-1",
  counterPartyAddress: "http://provider/api/dsp",
});

describe.each(storeDialects())("the demonstration transfers' list cache on %s", (dialect) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("shows a transfer created here at once, in the whole list and the participant's", async () => {
    store = await openTestStore(dialect);
    const transfers = await createDemoTransferStore(store.rel);
    expect(await transfers.listShared()).toEqual([]);
    expect(await transfers.listShared("pharmaco")).toEqual([]);
    const made = await transfers.create(input("pharmaco"));
    expect((await transfers.listShared()).map((r) => r["@id"])).toEqual([made["@id"]]);
    expect((await transfers.listShared("pharmaco")).map((r) => r["@id"])).toEqual([made["@id"]]);
    expect(await transfers.listShared("lmc")).toEqual([]);
  });

  it("hands out one frozen list of frozen records while nothing is created", async () => {
    store = await openTestStore(dialect);
    const transfers = await createDemoTransferStore(store.rel);
    await transfers.create(input("pharmaco"));
    const first = await transfers.listShared();
    expect(first).toHaveLength(1);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);
    expect(await transfers.listShared()).toBe(first);
  });

  it("reads the store again when another instance tells of a new transfer (the change feed)", async () => {
    store = await openTestStore(dialect);
    const transfers = await createDemoTransferStore(store.rel);
    expect(await transfers.listShared()).toEqual([]);
    // a row written by another instance: unseen until its change notice arrives
    await store.rel.db
      .insertInto("dataspace_demo_transfers")
      .values({
        id: "transfer-demo-other",
        participant_id: "lmc",
        created_at: 1,
        record: '{"@id":"transfer-demo-other"}',
      })
      .execute();
    expect(await transfers.listShared()).toEqual([]);
    const before = store.rel.changes.version(DEMO_TRANSFERS_TOPIC);
    await store.rel.changes.notify(DEMO_TRANSFERS_TOPIC);
    // on PostgreSQL the notice comes back by LISTEN/NOTIFY: wait until this instance knows it
    await vi.waitFor(() => expect(store.rel.changes.version(DEMO_TRANSFERS_TOPIC)).toBeGreaterThan(before));
    expect((await transfers.listShared()).map((r) => r["@id"])).toEqual(["transfer-demo-other"]);
  });
});
