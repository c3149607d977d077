import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { createPolicyRegistry, EMBEDDED_NOTE, type RegistryRow } from "./policy-registry";

const row = (participant: string, id: string, version: number, at: string): RegistryRow => ({
  participant_id: participant,
  policy_id: id,
  document: JSON.stringify({ "@id": id, "@type": "Set", permission: [] }),
  version,
  created_by: "admin",
  created_at: at,
  updated_by: "admin",
  updated_at: at,
  connector_state: "in-sync",
  connector_detail: null,
  deleted_at: null,
});

describe.each(storeDialects())("policy registry on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  async function open() {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    return { registry: await createPolicyRegistry(store.rel, audit), audit, rel: store.rel };
  }

  it("writes, updates, withdraws and revives a policy's row", async () => {
    const { registry } = await open();
    await registry.insertRow(row("lmc", "offer-a", 1, "2026-11-01T00:00:00.000Z"));
    await registry.insertRow(row("clinic", "offer-a", 1, "2026-11-01T00:00:00.000Z"));
    expect(await registry.getRow("lmc", "offer-a")).toEqual(
      row("lmc", "offer-a", 1, "2026-11-01T00:00:00.000Z"),
    );
    await registry.updateRow({
      ...row("lmc", "offer-a", 2, "2026-11-01T00:00:00.000Z"),
      updated_by: "regulator",
      updated_at: "2026-11-02T00:00:00.000Z",
      connector_state: "hub-newer",
      connector_detail: EMBEDDED_NOTE,
    });
    expect(await registry.getRow("lmc", "offer-a")).toMatchObject({
      version: 2,
      created_at: "2026-11-01T00:00:00.000Z",
      updated_by: "regulator",
      connector_state: "hub-newer",
    });
    expect((await registry.rowsById("offer-a")).map((r) => r.participant_id).sort()).toEqual([
      "clinic",
      "lmc",
    ]);

    await registry.deleteRow("lmc", "offer-a", "2026-11-03T00:00:00.000Z", "admin");
    expect(await registry.getRow("lmc", "offer-a")).toMatchObject({
      deleted_at: "2026-11-03T00:00:00.000Z",
      version: 2,
    });
    expect((await registry.rowsById("offer-a")).map((r) => r.participant_id)).toEqual(["clinic"]);
    // created again through the hub: the row is live again with the new version
    await registry.insertRow(row("lmc", "offer-a", 3, "2026-11-04T00:00:00.000Z"));
    expect(await registry.getRow("lmc", "offer-a")).toMatchObject({ version: 3, deleted_at: null });
    expect(await registry.rowsOf("lmc")).toHaveLength(1);
  });

  it("stores a row's named columns only, whatever else the caller's object carries", async () => {
    const { registry } = await open();
    const wider = {
      ...row("lmc", "offer-a", 1, "2026-11-01T00:00:00.000Z"),
      participantId: "lmc",
      note: "x",
    };
    await registry.insertRow(wider);
    await registry.insertRow({ ...wider, version: 2 });
    await registry.updateRow({ ...wider, version: 3 });
    expect(await registry.getRow("lmc", "offer-a")).toEqual(
      row("lmc", "offer-a", 3, "2026-11-01T00:00:00.000Z"),
    );
  });

  it("commits a registry change and its audit entry together, or neither", async () => {
    const { registry, audit } = await open();
    await expect(
      registry.transaction(async (tx) => {
        await registry.insertRow(row("lmc", "offer-a", 1, "2026-11-01T00:00:00.000Z"), tx);
        await registry.record("policy.create", "admin", "lmc/offer-a", "Offer pushed to the connector", tx);
        throw new Error("fails after the audit append");
      }),
    ).rejects.toThrow("fails after the audit append");
    expect(await registry.getRow("lmc", "offer-a")).toBeUndefined();
    expect(await audit.count()).toBe(0);

    await registry.transaction(async (tx) => {
      await registry.insertRow(row("lmc", "offer-a", 1, "2026-11-01T00:00:00.000Z"), tx);
      await registry.record("policy.create", "admin", "lmc/offer-a", "Offer pushed to the connector", tx);
    });
    expect(await registry.getRow("lmc", "offer-a")).toMatchObject({ version: 1 });
    expect(await audit.list({ kind: "policy" })).toMatchObject([
      { action: "policy.create", target: "lmc/offer-a", outcome: "Offer pushed to the connector" },
    ]);
    expect(await audit.verify()).toEqual({ ok: true, checked: 1 });
  });
});
