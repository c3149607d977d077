import { openDatabase, type Db } from "../../storage/database";
import { sqliteAdapter, sweepExpired } from "./adapter";
import { cookieKeys, idpClientSecret, signingKey } from "./keys";

let db: Db;

beforeEach(() => {
  db = openDatabase(":memory:");
});

afterEach(() => {
  vi.useRealTimers();
  db.close();
});

describe("SQLite adapter of the identity provider", () => {
  it("stores, finds, consumes and destroys payloads per model", async () => {
    const Adapter = sqliteAdapter(db);
    const codes = new Adapter("AuthorizationCode");
    const sessions = new Adapter("Session");
    await codes.upsert("c1", { grantId: "g1", accountId: "clinic" }, 60);
    await sessions.upsert("c1", { uid: "u1", accountId: "lmc" }, 60);

    expect(await codes.find("c1")).toEqual({ grantId: "g1", accountId: "clinic" });
    expect(await sessions.findByUid("u1")).toMatchObject({ accountId: "lmc" });
    expect(await codes.findByUid("u1")).toBeUndefined();

    await codes.consume("c1");
    expect((await codes.find("c1"))?.consumed).toEqual(expect.any(Number));

    await codes.destroy("c1");
    expect(await codes.find("c1")).toBeUndefined();
    expect(await sessions.find("c1")).toBeDefined();
  });

  it("revokes everything of a grant in one model", async () => {
    const Adapter = sqliteAdapter(db);
    const tokens = new Adapter("AccessToken");
    await tokens.upsert("t1", { grantId: "g1" }, 60);
    await tokens.upsert("t2", { grantId: "g1" }, 60);
    await tokens.upsert("t3", { grantId: "g2" }, 60);
    await tokens.revokeByGrantId("g1");
    expect(await tokens.find("t1")).toBeUndefined();
    expect(await tokens.find("t2")).toBeUndefined();
    expect(await tokens.find("t3")).toBeDefined();
  });

  it("hides expired payloads and sweeps them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-01-01T00:00:00Z"));
    const Adapter = sqliteAdapter(db);
    const interactions = new Adapter("Interaction");
    await interactions.upsert("i1", { uid: "i1" }, 600);
    await interactions.upsert("forever", {});

    vi.setSystemTime(new Date("2025-01-01T00:10:01Z"));
    expect(await interactions.find("i1")).toBeUndefined();
    expect(await interactions.find("forever")).toBeDefined();
    expect(sweepExpired(db)).toBe(1);
  });
});

describe("values the identity provider keeps", () => {
  it("generates the client secret, cookie key and signing key once", async () => {
    const secret = idpClientSecret(db);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(idpClientSecret(db)).toBe(secret);
    expect(cookieKeys(db)).toEqual(cookieKeys(db));

    const key = await signingKey(db);
    expect(key).toMatchObject({
      kty: "RSA",
      alg: "RS256",
      use: "sig",
      kid: expect.any(String),
      d: expect.any(String),
    });
    expect(await signingKey(db)).toEqual(key);
  });
});
