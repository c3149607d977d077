import { openTestStore, storeDialects, type TestStore } from "../../../tests/support/relational";
import { relationalAdapter, sweepExpired } from "./adapter";
import { getOrCreateSecret } from "../../storage/secrets";
import { cookieKeys, idpClientSecret, signingKey } from "./keys";

describe.each(storeDialects())("the identity provider's adapter on %s", (dialect) => {
  let store: TestStore;
  afterEach(async () => {
    vi.useRealTimers();
    await store?.close();
  });

  it("stores, finds, consumes and destroys payloads per model", async () => {
    store = await openTestStore(dialect);
    const Adapter = await relationalAdapter(store.rel);
    const codes = new Adapter("AuthorizationCode");
    const sessions = new Adapter("Session");
    await codes.upsert("c1", { grantId: "g1", accountId: "clinic" }, 60);
    await sessions.upsert("c1", { uid: "u1", accountId: "lmc" }, 60);

    expect(await codes.find("c1")).toEqual({ grantId: "g1", accountId: "clinic" });
    expect(await sessions.findByUid("u1")).toMatchObject({ accountId: "lmc" });
    expect(await codes.findByUid("u1")).toBeUndefined();

    await codes.consume("c1");
    expect((await codes.find("c1"))?.consumed).toEqual(expect.any(Number));
    // an upsert replaces the payload and clears the consumption
    await codes.upsert("c1", { grantId: "g1", accountId: "lmc" }, 60);
    expect(await codes.find("c1")).toEqual({ grantId: "g1", accountId: "lmc" });

    await codes.destroy("c1");
    expect(await codes.find("c1")).toBeUndefined();
    expect(await sessions.find("c1")).toBeDefined();
  });

  it("finds by user code", async () => {
    store = await openTestStore(dialect);
    const Adapter = await relationalAdapter(store.rel);
    const devices = new Adapter("DeviceCode");
    await devices.upsert("d1", { userCode: "ABCD-EFGH", accountId: "clinic" }, 60);
    expect(await devices.findByUserCode("ABCD-EFGH")).toMatchObject({ accountId: "clinic" });
    expect(await devices.findByUserCode("XXXX-XXXX")).toBeUndefined();
  });

  it("revokes everything of a grant in one model", async () => {
    store = await openTestStore(dialect);
    const Adapter = await relationalAdapter(store.rel);
    const tokens = new Adapter("AccessToken");
    const refresh = new Adapter("RefreshToken");
    await tokens.upsert("t1", { grantId: "g1" }, 60);
    await tokens.upsert("t2", { grantId: "g1" }, 60);
    await tokens.upsert("t3", { grantId: "g2" }, 60);
    await refresh.upsert("r1", { grantId: "g1" }, 60);
    await tokens.revokeByGrantId("g1");
    expect(await tokens.find("t1")).toBeUndefined();
    expect(await tokens.find("t2")).toBeUndefined();
    expect(await tokens.find("t3")).toBeDefined();
    expect(await refresh.find("r1")).toBeDefined();
  });

  it("hides expired payloads and sweeps them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-01-01T00:00:00Z"));
    store = await openTestStore(dialect);
    const Adapter = await relationalAdapter(store.rel);
    const interactions = new Adapter("Interaction");
    await interactions.upsert("i1", { uid: "i1" }, 600);
    await interactions.upsert("forever", {});

    vi.setSystemTime(new Date("2025-01-01T00:10:01Z"));
    expect(await interactions.find("i1")).toBeUndefined();
    expect(await interactions.findByUid("i1")).toBeUndefined();
    expect(await interactions.find("forever")).toBeDefined();
    expect(await sweepExpired(store.rel)).toBe(1);
    expect(await sweepExpired(store.rel)).toBe(0);
  });

  it("serves what one instance wrote to another instance on the same store", async () => {
    store = await openTestStore(dialect);
    const onA = new (await relationalAdapter(store.rel))("Session");
    const onB = new (await relationalAdapter(await store.another()))("Session");
    await onA.upsert("s1", { uid: "u1", accountId: "clinic" }, 60);
    expect(await onB.find("s1")).toEqual({ uid: "u1", accountId: "clinic" });
    expect(await onB.findByUid("u1")).toEqual({ uid: "u1", accountId: "clinic" });
    await onB.destroy("s1");
    expect(await onA.find("s1")).toBeUndefined();
  });

  it("gives the client secret the app hands the provider (server/services.ts: the secret idp-client-secret)", async () => {
    store = await openTestStore(dialect);
    expect(await idpClientSecret(store.rel)).toBe(await getOrCreateSecret(store.rel, "idp-client-secret"));
  });

  it("generates the client secret, cookie key and signing key once, the same for every instance", async () => {
    store = await openTestStore(dialect);
    const { rel } = store;
    const other = await store.another();
    const secret = await idpClientSecret(rel);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await idpClientSecret(other)).toBe(secret);
    expect(await cookieKeys(rel)).toEqual(await cookieKeys(other));

    const [key, keyOnOther] = await Promise.all([signingKey(rel), signingKey(other)]);
    expect(key).toMatchObject({
      kty: "RSA",
      alg: "RS256",
      use: "sig",
      kid: expect.any(String),
      d: expect.any(String),
    });
    expect(keyOnOther).toEqual(key);
    expect(await signingKey(rel)).toEqual(key);
  });
});
