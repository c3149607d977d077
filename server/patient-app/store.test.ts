import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { createPatientAppStore, DEVICES_TOPIC, SYNC_TOPIC } from "./store";

const account = (id: string, thumb: string, now: number) => ({
  id,
  key_thumbprint: thumb,
  public_jwk: JSON.stringify({ kty: "EC", crv: "P-256", x: "x", y: "y" }),
  device_name: "Phone",
  platform: "android",
  created_at: now,
});
const pairing = (id: string, patient: string, code: string, now: number) => ({
  id,
  patient_id: patient,
  code_hash: code,
  created_by: "patient1",
  created_at: now,
  expires_at: now + 300_000,
});

describe.each(storeDialects())("companion app store on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  async function open() {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    return { app: await createPatientAppStore(store.rel), audit, rel: store.rel };
  }

  it("applies its migration once: a second start on the same store finds its tables", async () => {
    const { rel } = await open();
    const again = await createPatientAppStore(rel);
    expect(await again.account("nobody")).toBeUndefined();
  });

  it("consumes a challenge once, and not after it expired", async () => {
    const { app } = await open();
    const now = Date.now(); // millisecond times need more than 32 bits
    await app.insertChallenge("n1", now, now + 120_000);
    await app.insertChallenge("n2", now - 200_000, now - 80_000);
    expect(await app.consumeChallenge("n1", now)).toBe(true);
    expect(await app.consumeChallenge("n1", now)).toBe(false);
    expect(await app.challenge("n1")).toEqual({
      nonce: "n1",
      created_at: now,
      expires_at: now + 120_000,
      used_at: now,
    });
    expect(await app.consumeChallenge("n2", now)).toBe(false);
    // an insert purges challenges expired more than a minute ago
    await app.insertChallenge("n3", now, now + 120_000);
    expect(await app.challenge("n2")).toBeUndefined();
  });

  it("creates accounts, pairs each once, lists a patient's devices newest pairing first, revokes", async () => {
    const { app } = await open();
    const now = Date.now();
    await app.insertAccount(account("app-a", "t-a", now));
    await app.insertAccount(account("app-b", "t-b", now + 1));
    await expect(app.insertAccount(account("app-c", "t-a", now))).rejects.toThrow();
    expect(await app.accountByThumbprint("t-b")).toMatchObject({
      id: "app-b",
      status: "active",
      patient_id: null,
      paired_at: null,
      created_at: now + 1,
    });
    expect(await app.pairAccount("app-a", "patient-1", now + 10, "pair-1", null)).toBe(true);
    expect(await app.pairAccount("app-a", "patient-2", now + 11, "pair-2", "Other")).toBe(false);
    expect(await app.pairAccount("app-b", "patient-1", now + 20, "pair-3", "Watch")).toBe(true);
    const devices = await app.accountsOfPatient("patient-1");
    expect(devices.map((d) => [d.id, d.device_name, d.paired_at])).toEqual([
      ["app-b", "Watch", now + 20],
      ["app-a", "Phone", now + 10],
    ]);
    expect(await app.revokeAccount("app-a", now + 30, "patient1")).toBe(true);
    expect(await app.revokeAccount("app-a", now + 31, "patient1")).toBe(false);
    expect(await app.account("app-a")).toMatchObject({
      status: "revoked",
      revoked_at: now + 30,
      revoked_by: "patient1",
    });
    // a revoked account cannot be paired again
    expect(await app.pairAccount("app-a", "patient-1", now + 40, "pair-4", null)).toBe(false);
    await app.touchAccount("app-b", now + 50);
    expect((await app.account("app-b"))?.last_seen_at).toBe(now + 50);
    // a caller's wider object stores a new account's columns only: it cannot pair or revoke it
    const wider = {
      ...account("app-w", "t-w", now),
      patient_id: "patient-1",
      paired_at: now,
      status: "revoked",
    };
    await app.insertAccount(wider);
    expect(await app.account("app-w")).toMatchObject({ patient_id: null, paired_at: null, status: "active" });
  });

  it("completes a pairing once and only before it expires; counts pending pairings", async () => {
    const { app } = await open();
    const now = Date.now();
    await app.insertPairing(pairing("pair-1", "patient-1", "h1", now));
    await app.insertPairing(pairing("pair-2", "patient-1", "h2", now));
    await expect(app.insertPairing(pairing("pair-3", "patient-1", "h1", now))).rejects.toThrow();
    expect(await app.pendingPairings("patient-1", now)).toBe(2);
    expect(await app.pairingByCode("h2")).toMatchObject({ id: "pair-2", completed_at: null });
    expect(await app.completePairing("pair-1", "app-a", now + 1)).toBe(true);
    expect(await app.completePairing("pair-1", "app-b", now + 2)).toBe(false);
    expect(await app.pairing("pair-1")).toMatchObject({ completed_at: now + 1, account_id: "app-a" });
    expect(await app.completePairing("pair-2", "app-b", now + 300_000)).toBe(false);
    expect(await app.pendingPairings("patient-1", now + 2)).toBe(1);
    expect(await app.pendingPairings("patient-1", now + 300_000)).toBe(0);
    // a caller's wider object stores a new pairing's columns only: it cannot complete it
    const wider = { ...pairing("pair-w", "patient-1", "h-w", now), completed_at: now, account_id: "app-a" };
    await app.insertPairing(wider);
    expect(await app.pairing("pair-w")).toMatchObject({ completed_at: null, account_id: null });
  });

  it("remembers a request token id once per account (replay)", async () => {
    const { app } = await open();
    const now = Date.now();
    expect(await app.rememberJti("app-a", "jti-1", now + 140_000, now)).toBe(true);
    expect(await app.rememberJti("app-a", "jti-1", now + 140_000, now)).toBe(false);
    expect(await app.rememberJti("app-b", "jti-1", now + 140_000, now)).toBe(true);
    // expired ids are purged: the same id is new again once it could not be valid anyway
    expect(await app.rememberJti("app-a", "jti-1", now + 400_000, now + 200_000)).toBe(true);
  });

  it("keeps the sync ledger (upsert by resource) and the last run", async () => {
    const { app } = await open();
    const now = Date.now();
    const item = { patient_id: "patient-1", resource_key: "Condition/c1", holder: "h", hash: "1", now };
    await app.upsertSyncItem(item);
    await app.upsertSyncItem({ ...item, hash: "2", now: now + 5 });
    await app.upsertSyncItem({ ...item, resource_key: "Condition/c2", now });
    const { now: _, ...row } = item;
    expect((await app.syncItems("patient-1")).find((i) => i.resource_key === "Condition/c1")).toEqual({
      ...row,
      hash: "2",
      first_synced_at: now,
      last_changed_at: now + 5,
    });
    await app.deleteSyncItem("patient-1", "Condition/c2");
    expect(await app.syncItems("patient-1")).toHaveLength(1);
    // a caller's wider object (a planned change with more fields) stores the ledger's columns only
    const planned = { ...item, resource_key: "Condition/c3", key: "Condition/c3", status: "added" };
    await app.upsertSyncItem(planned);
    expect((await app.syncItems("patient-1")).find((i) => i.resource_key === "Condition/c3")).toEqual({
      ...row,
      resource_key: "Condition/c3",
      first_synced_at: now,
      last_changed_at: now,
    });
    await app.deleteSyncItem("patient-1", "Condition/c3");
    const run = {
      patient_id: "patient-1",
      actor: "patient1",
      added: 1,
      updated: 0,
      unchanged: 0,
      removed: 0,
    };
    await app.insertSyncRun({ ...run, id: "s1", at: now });
    await app.insertSyncRun({ ...run, id: "s2", at: now + 9 });
    expect(await app.lastSyncRun("patient-1")).toEqual({ at: now + 9, actor: "patient1" });
    expect(await app.lastSyncRun("patient-2")).toBeUndefined();
    // a caller's wider object (a plan with its changes) stores the run's columns only
    const wideRun = { ...run, id: "s3", at: now + 10, changes: ["Condition/c1"] };
    await app.insertSyncRun(wideRun);
    expect(await app.lastSyncRun("patient-1")).toEqual({ at: now + 10, actor: "patient1" });
  });

  it("erases an account's data and a patient's ledger, counting what went", async () => {
    const { app } = await open();
    const now = Date.now();
    await app.insertAccount(account("app-a", "t-a", now));
    await app.pairAccount("app-a", "patient-1", now, "pair-1", null);
    await app.insertPairing(pairing("pair-1", "patient-1", "h1", now));
    await app.completePairing("pair-1", "app-a", now);
    await app.insertPairing(pairing("pair-2", "patient-1", "h2", now));
    await app.rememberJti("app-a", "j1", now + 100_000, now);
    await app.rememberJti("app-a", "j2", now + 100_000, now);
    await app.upsertSyncItem({ patient_id: "patient-1", resource_key: "k", holder: "h", hash: "1", now });
    await app.insertSyncRun({
      id: "s1",
      patient_id: "patient-1",
      at: now,
      actor: "a",
      added: 1,
      updated: 0,
      unchanged: 0,
      removed: 0,
    });
    const counts = await app.rel.tx(async (tx) => ({
      jtis: await app.deleteJtisOfAccount("app-a", tx),
      accountPairings: await app.deletePairingsOfAccount("app-a", tx),
      accounts: await app.deleteAccount("app-a", tx),
      patientPairings: await app.deletePairingsOfPatient("patient-1", tx),
      items: await app.deleteSyncItemsOfPatient("patient-1", tx),
      runs: await app.deleteSyncRunsOfPatient("patient-1", tx),
    }));
    expect(counts).toEqual({
      jtis: 2,
      accountPairings: 1,
      accounts: 1,
      patientPairings: 1,
      items: 1,
      runs: 1,
    });
    expect(await app.account("app-a")).toBeUndefined();
    expect(await app.accountsOfPatient("patient-1")).toEqual([]);
    expect(await app.lastSyncRun("patient-1")).toBeUndefined();
  });

  it("commits a write and its audit entry together, or neither", async () => {
    const { app, audit, rel } = await open();
    const now = Date.now();
    const record = {
      action: "app-pairing.create",
      actor: "patient1",
      target: "patient-1",
      kind: "patient-app",
    };
    await expect(
      rel.tx(async (tx) => {
        await app.insertPairing(pairing("pair-1", "patient-1", "h1", now), tx);
        await audit.append(record, { tx });
        throw new Error("fails after the audit append");
      }),
    ).rejects.toThrow("fails after the audit append");
    expect(await app.pairing("pair-1")).toBeUndefined();
    expect(await audit.count()).toBe(0);

    await rel.tx(async (tx) => {
      await app.insertPairing(pairing("pair-1", "patient-1", "h1", now), tx);
      await audit.append(record, { tx });
    });
    expect(await app.pairing("pair-1")).toMatchObject({ id: "pair-1" });
    expect(await audit.list({ kind: "patient-app" })).toMatchObject([record]);
    expect(await audit.verify()).toEqual({ ok: true, checked: 1 });
  });

  it("moves its tables' change-feed topic with every write: once per transaction, at once outside one", async () => {
    const { app, rel } = await open();
    const now = Date.now();
    const versions = async () => [
      await rel.changes.fresh(SYNC_TOPIC),
      await rel.changes.fresh(DEVICES_TOPIC),
    ];
    /** how far [sync, devices] moved over `write` */
    const moved = async (write: () => Promise<unknown>) => {
      const before = await versions();
      await write();
      const after = await versions();
      return [after[0] - before[0], after[1] - before[1]];
    };
    const run = (id: string) => ({
      id,
      patient_id: "patient-1",
      at: now,
      actor: "a",
      added: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
    });
    const item = (key: string) => ({
      patient_id: "patient-1",
      resource_key: key,
      holder: "h",
      hash: "x",
      now,
    });
    expect(await moved(() => app.insertAccount(account("app-a", "t-a", now)))).toEqual([0, 1]);
    expect(await moved(() => app.insertPairing(pairing("pair-a", "patient-1", "h-a", now)))).toEqual([0, 1]);
    expect(await moved(() => app.completePairing("pair-a", "app-a", now))).toEqual([0, 1]);
    expect(await moved(() => app.pairAccount("app-a", "patient-1", now, "pair-a", null))).toEqual([0, 1]);
    expect(await moved(() => app.touchAccount("app-a", now + 1))).toEqual([0, 1]);
    expect(await moved(() => app.revokeAccount("app-a", now, "patient1"))).toEqual([0, 1]);
    expect(await moved(() => app.upsertSyncItem(item("Observation/o1")))).toEqual([1, 0]);
    expect(await moved(() => app.deleteSyncItem("patient-1", "Observation/o1"))).toEqual([1, 0]);
    expect(await moved(() => app.insertSyncRun(run("s1")))).toEqual([1, 0]);
    // a transaction of many writes to both: each topic once
    expect(
      await moved(() =>
        rel.tx(async (tx) => {
          await app.upsertSyncItem(item("Observation/o2"), tx);
          await app.upsertSyncItem(item("Observation/o3"), tx);
          await app.insertSyncRun(run("s2"), tx);
          await app.deletePairingsOfAccount("app-a", tx);
          await app.deleteAccount("app-a", tx);
          await app.deletePairingsOfPatient("patient-1", tx);
          await app.deleteSyncItemsOfPatient("patient-1", tx);
          await app.deleteSyncRunsOfPatient("patient-1", tx);
        }),
      ),
    ).toEqual([1, 1]);
    // reads, challenges and request ids move neither
    expect(
      await moved(async () => {
        await app.insertChallenge("n1", now, now + 120_000);
        await app.consumeChallenge("n1", now);
        await app.rememberJti("app-a", "j1", now + 60_000, now);
        await app.accountsOfPatient("patient-1");
        await app.syncItems("patient-1");
      }),
    ).toEqual([0, 0]);
  });
});
