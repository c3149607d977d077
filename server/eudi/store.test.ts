import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { createKeyStore } from "./keys";
import { createEudiStore } from "./store";

const T0 = Date.UTC(2026, 10, 24, 10, 0, 0);
const row = (sid: string, createdAt = T0) => ({
  sid,
  binding_hash: `hash-${sid}`,
  mode: "embedded" as const,
  request_id: `req-${sid}`,
  state: `state-${sid}`,
  nonce: `nonce-${sid}`,
  client_id: "redirect_uri:http://127.0.0.1/auth/wallet/response",
  transaction_id: null,
  wallet_link: `openid4vp://?request_uri=req-${sid}`,
  return_to: "/patient",
  created_at: createdAt,
  expires_at: createdAt + 5 * 60 * 1000,
});

describe.each(storeDialects())("wallet sign-in store on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("finds a transaction by sid, request id and state, on another instance too", async () => {
    store = await openTestStore(dialect);
    const eudi = await createEudiStore(store.rel);
    const other = await createEudiStore(await store.another());
    await eudi.insert(row("s1"));
    const found = await other.bySid("s1");
    expect(found).toMatchObject({
      ...row("s1"),
      status: "pending",
      responded_at: null,
      session_issued_at: null,
    });
    expect(typeof found?.created_at).toBe("number");
    expect((await other.byRequestId("req-s1"))?.sid).toBe("s1");
    expect((await other.byState("state-s1"))?.sid).toBe("s1");
    expect(await other.bySid("nope")).toBeUndefined();
  });

  it("stores a new sign-in's own columns only: a caller's wider object cannot set its outcome", async () => {
    store = await openTestStore(dialect);
    const eudi = await createEudiStore(store.rel);
    const wider = { ...row("s1"), status: "completed", patient_id: "patient-000001", session_issued_at: T0 };
    await eudi.insert(wider);
    expect(await eudi.bySid("s1")).toMatchObject({
      status: "pending",
      patient_id: null,
      session_issued_at: null,
    });
  });

  it("answers a status poll's row kept on the embedded store, and every write at the next read", async () => {
    store = await openTestStore(dialect);
    const eudi = await createEudiStore(store.rel);
    const other = await createEudiStore(await store.another());
    expect(await eudi.bySid("s1")).toBeUndefined();
    await other.insert(row("s1"));
    const pending = await eudi.bySid("s1");
    expect(pending?.status).toBe("pending");
    // kept where every write passes through this module (SQLite), asked again on PostgreSQL
    if (dialect === "sqlite") expect(await eudi.bySid("s1")).toBe(pending);
    else expect(await eudi.bySid("s1")).not.toBe(pending);
    await other.markFetched("s1", T0 + 1);
    expect((await eudi.bySid("s1"))?.request_fetched_at).toBe(T0 + 1);
    // a read that overlaps a write is not kept: the next read sees the write
    const overlapping = eudi.bySid("s1");
    const completing = other.complete("s1", "patient-000001", '{"sub":"p"}', T0 + 2);
    await Promise.all([overlapping, completing]);
    expect(await eudi.bySid("s1")).toMatchObject({ status: "completed", completed_at: T0 + 2 });
    await store.rel
      .tx(async (tx) => {
        await other.claim("s1", T0 + 3, tx);
        throw new Error("rolled back");
      })
      .catch(() => {});
    expect((await eudi.bySid("s1"))?.session_issued_at).toBeNull();
    expect(await eudi.claim("s1", T0 + 4)).toBe(true);
    expect((await eudi.bySid("s1"))?.session_issued_at).toBe(T0 + 4);
    expect(await other.purgeOlderThan(T0 + 1)).toBe(1);
    expect(await eudi.bySid("s1")).toBeUndefined();
  });

  it("accepts one wallet answer, completes once and hands out the session once", async () => {
    store = await openTestStore(dialect);
    const eudi = await createEudiStore(store.rel);
    await eudi.insert(row("s1"));
    await eudi.markFetched("s1", T0 + 1);
    await eudi.markFetched("s1", T0 + 2);
    expect((await eudi.bySid("s1"))?.request_fetched_at).toBe(T0 + 1);
    expect(await eudi.claim("s1", T0 + 3)).toBe(false); // not completed yet
    expect(await eudi.markResponded("s1", T0 + 3)).toBe(true);
    expect(await eudi.markResponded("s1", T0 + 4)).toBe(false);
    expect(await eudi.complete("s1", "patient-000001", '{"sub":"p"}', T0 + 5)).toBe(true);
    expect(await eudi.fail("s1", "too late", T0 + 6)).toBe(false);
    expect(await eudi.claim("s1", T0 + 7)).toBe(true);
    expect(await eudi.claim("s1", T0 + 8)).toBe(false);
    expect(await eudi.bySid("s1")).toMatchObject({
      status: "completed",
      patient_id: "patient-000001",
      completed_at: T0 + 5,
      session_issued_at: T0 + 7,
      reason: null,
    });
  });

  it("purges transactions older than a time", async () => {
    store = await openTestStore(dialect);
    const eudi = await createEudiStore(store.rel);
    await eudi.insert(row("old", T0 - 2 * 86_400_000));
    await eudi.insert(row("new"));
    expect(await eudi.purgeOlderThan(T0 - 86_400_000)).toBe(1);
    expect(await eudi.bySid("old")).toBeUndefined();
    expect(await eudi.bySid("new")).toBeDefined();
  });

  it("commits a state change with its audit entry, or neither", async () => {
    store = await openTestStore(dialect);
    const { rel } = store;
    const audit = await createAuditLog(rel);
    const eudi = await createEudiStore(rel);
    await eudi.insert(row("s1"));
    await expect(
      rel.tx(async (tx) => {
        expect(await eudi.fail("s1", "refused", T0 + 1, tx)).toBe(true);
        await audit.append(
          { action: "eudi.presentation", actor: "wallet", target: "eudi:s1", kind: "eudi" },
          { tx },
        );
        throw new Error("refused after the audit entry");
      }),
    ).rejects.toThrow("refused after");
    expect((await eudi.bySid("s1"))?.status).toBe("pending");
    expect(await audit.count()).toBe(0);

    await rel.tx(async (tx) => {
      await eudi.insert(row("s2"), tx);
      await audit.append(
        { action: "eudi.start", actor: "anonymous", target: "eudi:s2", kind: "eudi" },
        { tx },
      );
    });
    expect((await eudi.bySid("s2"))?.status).toBe("pending");
    expect(await audit.count()).toBe(1);
  });

  it("keeps the embedded parties' keys once, the same for every instance", async () => {
    store = await openTestStore(dialect);
    const a = await createKeyStore(store.rel);
    const b = await createKeyStore(await store.another());
    const [ka, kb] = await Promise.all([a.get("dev-pid-issuer"), b.get("dev-pid-issuer")]);
    expect(ka.kid).toBe(kb.kid);
    expect(ka.publicJwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect((await a.get("dev-wallet-holder")).kid).not.toBe(ka.kid);
  });
});
