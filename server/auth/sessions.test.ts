import { afterEach, describe, expect, it, vi } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import {
  createSessionStore,
  SESSION_ABSOLUTE_MS,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SESSION_RECHECK_MS,
  SESSIONS_TOPIC,
  type ProviderCheck,
  type ProviderVerdict,
} from "./sessions";
import type { SessionUser } from "./user";

const user: SessionUser = {
  sub: "clinic",
  username: "clinic",
  name: "Dr. C",
  roles: ["DATA_HOLDER"],
  organisation: "AlphaKlinik Berlin",
};
const req = (cookie?: string) => new Request("http://x/", { headers: cookie ? { cookie } : {} });
const cookieOf = (setCookie: string) => setCookie.split(";")[0];
const options = { secret: "s".repeat(32), secure: false };

describe.each(storeDialects())("server-side sessions on %s", (dialect) => {
  let store: TestStore;
  afterEach(async () => {
    vi.useRealTimers();
    await store?.close();
  });

  it("ends the sessions of one provider session (back-channel logout) and no other", async () => {
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, options);
    const idToken = (sid: string) =>
      `h.${Buffer.from(JSON.stringify({ sub: user.sub, sid })).toString("base64url")}.s`;
    const first = cookieOf((await sessions.create(user, idToken("kc-1"))).setCookie);
    const second = cookieOf((await sessions.create(user, idToken("kc-2"))).setCookie);
    const other = cookieOf((await sessions.create({ ...user, sub: "clinic2" }, idToken("kc-1"))).setCookie);
    expect(await sessions.read(req(first))).not.toBeNull(); // cached now: the end must reach the cache too
    expect(await sessions.endProviderSession({ sub: user.sub, sid: "kc-1" })).toBe(1);
    expect(await sessions.read(req(first))).toBeNull();
    expect(await sessions.read(req(second))).not.toBeNull();
    expect(await sessions.read(req(other))).not.toBeNull();
    // without a sid: every session of the subject
    expect(await sessions.endProviderSession({ sub: user.sub })).toBe(1);
    expect(await sessions.read(req(second))).toBeNull();
    expect(await sessions.endProviderSession({})).toBe(0);
    expect(await sessions.read(req(other))).not.toBeNull();
  });

  it("keeps which patient record a patient's username stands for, from each sign-in (decision 0112)", async () => {
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, options);
    const maria: SessionUser = {
      ...user,
      username: "maria.schmidt",
      roles: ["PATIENT"],
      patientId: "patient-000003",
    };
    await sessions.create(maria, undefined);
    await sessions.create(user, undefined);
    expect(await sessions.patientsOf(["maria.schmidt", "clinic", "nobody"])).toEqual(
      new Map([["maria.schmidt", "patient-000003"]]),
    );
    // a later sign-in for another record (the provider's attribute changed): the latest holds
    await sessions.create({ ...maria, patientId: "patient-000004" }, undefined);
    expect(await sessions.patientsOf(["maria.schmidt"])).toEqual(
      new Map([["maria.schmidt", "patient-000004"]]),
    );
  });

  describe("re-check at the identity provider (refresh-token grant)", () => {
    const EVERY = 60_000;
    const GRACE = 300_000;
    /** the provider's answers, in order, and the refresh tokens it was asked with */
    function provider(...answers: ProviderVerdict[]) {
      const asked: string[] = [];
      const providerCheck: ProviderCheck = {
        everyMs: EVERY,
        graceMs: GRACE,
        refresh: (refreshToken) => {
          asked.push(refreshToken);
          const next = answers.shift();
          return next ? Promise.resolve(next) : Promise.reject(new Error("no answer left"));
        },
      };
      return { asked, providerCheck };
    }

    it("sign-out gives the live session's refresh token (the provider's latest), for its revocation", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const { providerCheck } = provider({ state: "active", refreshToken: "rt-2" });
      const sessions = await createSessionStore(store.rel, { ...options, providerCheck });
      const cookie = req(
        cookieOf((await sessions.create(user, "id.t.s", { refreshToken: "rt-1" })).setCookie),
      );
      vi.advanceTimersByTime(EVERY + 1000);
      expect(await sessions.userFromRequest(cookie)).toEqual(user); // re-checked: the provider gave rt-2
      const ended = await sessions.destroy(cookie);
      expect(ended.refreshToken).toBe("rt-2");
      expect(await sessions.read(cookie)).toBeNull();
      // a session already ended gives none
      expect((await sessions.destroy(cookie)).refreshToken).toBeUndefined();
    });

    it("asks at most every interval; active keeps the session (with the new token), ended ends it", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const { asked, providerCheck } = provider(
        { state: "active", refreshToken: "rt-2" },
        { state: "ended", reason: "invalid_grant – Session not active" },
      );
      const sessions = await createSessionStore(store.rel, { ...options, providerCheck });
      const cookie = req(
        cookieOf((await sessions.create(user, "id.t.s", { refreshToken: "rt-1" })).setCookie),
      );
      const stored = await store.rel.db.selectFrom("sessions").select("refresh_token").executeTakeFirst();
      expect(stored?.refresh_token).toBeTruthy();
      expect(stored?.refresh_token).not.toContain("rt-1"); // sealed
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      vi.advanceTimersByTime(EVERY - 1000);
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      expect(asked).toEqual([]);
      vi.advanceTimersByTime(1000);
      // due: the cache does not answer past the interval, the read waits for the provider
      expect(sessions.cachedUser(cookie)).toBeUndefined();
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      expect(asked).toEqual(["rt-1"]);
      vi.advanceTimersByTime(EVERY / 2);
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      expect(asked).toEqual(["rt-1"]);
      vi.advanceTimersByTime(EVERY / 2);
      expect(await sessions.userFromRequest(cookie)).toBeNull();
      expect(asked).toEqual(["rt-1", "rt-2"]);
      expect(await store.rel.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
    });

    it("provider unreachable: kept within the grace, refused after it, confirmed again when it is back", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const away = { state: "unreachable", reason: "token request: no answer within the time-out" } as const;
      const { asked, providerCheck } = provider(away, away, away, away, away, away, { state: "active" });
      const sessions = await createSessionStore(store.rel, { ...options, providerCheck });
      const a = req(cookieOf((await sessions.create(user, "id.t.s", { refreshToken: "rt-a" })).setCookie));
      const b = req(cookieOf((await sessions.create(user, "id.t.s", { refreshToken: "rt-b" })).setCookie));
      vi.advanceTimersByTime(EVERY);
      expect(await sessions.userFromRequest(a)).toEqual(user);
      // the provider was away moments ago: b is not made to wait for it too
      expect(await sessions.userFromRequest(b)).toEqual(user);
      expect(asked).toEqual(["rt-a"]);
      // through the grace, asked once an interval
      for (let t = EVERY; t + EVERY <= GRACE; t += EVERY) {
        vi.advanceTimersByTime(EVERY);
        expect(await sessions.userFromRequest(a)).toEqual(user);
      }
      expect(asked.length).toBe(GRACE / EVERY);
      vi.advanceTimersByTime(EVERY + 1);
      expect(await sessions.userFromRequest(a)).toBeNull();
      expect(asked.length).toBe(GRACE / EVERY + 1);
      expect(await sessions.userFromRequest(b)).toBeNull();
      // refused, not ended: the provider back and the session still active there, it works again
      vi.advanceTimersByTime(EVERY);
      expect(await sessions.userFromRequest(a)).toEqual(user);
      expect(asked.length).toBe(GRACE / EVERY + 2);
    });

    it("takes the user of a refreshed ID token (roles changed at the provider); another subject ends it", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const demoted: SessionUser = { ...user, roles: ["DATA_USER"], organisation: "Institut" };
      const { providerCheck } = provider(
        { state: "active", idToken: "id.t2.s", user: demoted },
        { state: "active", idToken: "id.t3.s", user: { ...demoted, sub: "someone-else" } },
      );
      const sessions = await createSessionStore(store.rel, { ...options, providerCheck });
      const cookie = req(
        cookieOf((await sessions.create(user, "id.t.s", { refreshToken: "rt-1" })).setCookie),
      );
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      vi.advanceTimersByTime(EVERY);
      expect(await sessions.userFromRequest(cookie)).toEqual(demoted);
      expect((await sessions.read(cookie))?.idToken).toBe("id.t2.s");
      // stored, not only cached: a fresh store (another instance) reads the same
      const other = await createSessionStore(store.rel, { ...options, providerCheck });
      expect(await other.userFromRequest(cookie)).toEqual(demoted);
      vi.advanceTimersByTime(EVERY);
      expect(await sessions.userFromRequest(cookie)).toBeNull();
      expect(await store.rel.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
    });

    it("a session without a refresh token (embedded provider, wallet) is never asked about", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const { asked, providerCheck } = provider();
      const sessions = await createSessionStore(store.rel, { ...options, providerCheck });
      const cookie = req(cookieOf((await sessions.create(user, undefined)).setCookie));
      vi.advanceTimersByTime(GRACE * 2);
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      expect(asked).toEqual([]);
    });
  });

  it("issues an opaque signed token and keeps the user server-side", async () => {
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, options);
    const { setCookie, token } = await sessions.create(user, "id.token.here");
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE.replaceAll(".", "\\.")}=`));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).not.toContain("Secure");
    expect(setCookie).not.toContain("clinic");
    const record = await sessions.read(req(cookieOf(setCookie)));
    expect(record?.user).toEqual(user);
    expect(record?.idToken).toBe("id.token.here");
    expect(await sessions.userFromRequest(req(cookieOf(setCookie)))).toEqual(user);
    expect(await sessions.read(req(`${SESSION_COOKIE}=${token}.forged`))).toBeNull();
    expect(await sessions.read(req(`${SESSION_COOKIE}=${token}`))).toBeNull();
    expect(await sessions.read(req())).toBeNull();
  });

  it("marks cookies Secure under https and gives a new id at each sign-in", async () => {
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, { ...options, secure: true });
    const a = await sessions.create(user, undefined);
    const b = await sessions.create(user, undefined);
    expect(a.setCookie).toContain("Secure");
    expect(a.token).not.toBe(b.token);
  });

  it("is read by another instance on the same store, and migrates once", async () => {
    store = await openTestStore(dialect);
    const a = await createSessionStore(store.rel, options);
    const other = await store.another();
    const b = await createSessionStore(other, options);
    const { setCookie } = await a.create(user, undefined);
    expect((await b.read(req(cookieOf(setCookie))))?.user).toEqual(user);
    await b.destroy(req(cookieOf(setCookie)));
    expect(await a.read(req(cookieOf(setCookie)))).toBeNull();
  });

  it("extends the idle window on activity (touch), ends after the idle time and on logout", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, options);
    const a = await sessions.create(user, undefined);
    // active every 90 minutes: each read touches the session, so it outlives the 2 h idle window
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(90 * 60 * 1000);
      expect((await sessions.read(req(cookieOf(a.setCookie))))?.user.username).toBe("clinic");
    }
    const destroyed = await sessions.destroy(req(cookieOf(a.setCookie)));
    expect(destroyed.record?.user.username).toBe("clinic");
    expect(destroyed.setCookie).toContain("Max-Age=0");
    expect(await sessions.read(req(cookieOf(a.setCookie)))).toBeNull();

    const b = await sessions.create(user, undefined);
    vi.advanceTimersByTime(SESSION_IDLE_MS + 1000);
    expect(await sessions.read(req(cookieOf(b.setCookie)))).toBeNull();
  });

  it("purges expired and idle sessions and keeps live ones", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
    store = await openTestStore(dialect);
    const sessions = await createSessionStore(store.rel, options);
    const idle = await sessions.create(user, undefined);
    vi.advanceTimersByTime(SESSION_IDLE_MS - 60_000);
    const live = await sessions.create(user, undefined);
    vi.advanceTimersByTime(120_000);
    expect(await sessions.purgeExpired()).toBe(1);
    expect(await sessions.purgeExpired()).toBe(0);
    const count = async () =>
      Number(
        (
          (await store.rel.db
            .selectFrom("sessions")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()) as { n: number }
        ).n,
      );
    expect(await count()).toBe(1);
    expect(await sessions.read(req(cookieOf(idle.setCookie)))).toBeNull();
    expect((await sessions.read(req(cookieOf(live.setCookie))))?.user).toEqual(user);
  });

  it("commits a session with the sign-in's audit entry, or neither", async () => {
    store = await openTestStore(dialect);
    const { rel } = store;
    const audit = await createAuditLog(rel);
    const sessions = await createSessionStore(rel, options);
    let cookie = "";
    await expect(
      rel.tx(async (tx) => {
        cookie = cookieOf((await sessions.create(user, undefined, { tx })).setCookie);
        await audit.append({ action: "signin", actor: "clinic", target: "clinic", kind: "session" }, { tx });
        throw new Error("refused after the audit entry");
      }),
    ).rejects.toThrow("refused");
    expect(await sessions.read(req(cookie))).toBeNull();
    expect(await audit.count()).toBe(0);

    await rel.tx(async (tx) => {
      cookie = cookieOf((await sessions.create(user, undefined, { tx })).setCookie);
      await audit.append({ action: "signin", actor: "clinic", target: "clinic", kind: "session" }, { tx });
    });
    expect((await sessions.read(req(cookie)))?.user).toEqual(user);
    expect(await audit.count()).toBe(1);
  });
  describe("the session cache", () => {
    // a row removed behind the store's back (as another instance's sign-out would) shows what is cached
    const dropRows = () => store.rel.db.deleteFrom("sessions").execute();

    it.runIf(dialect === "sqlite")(
      "answers a verified cookie from memory, and reads the store again after SESSION_RECHECK_MS",
      async () => {
        vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
        store = await openTestStore(dialect);
        const sessions = await createSessionStore(store.rel, options);
        const { setCookie } = await sessions.create(user, undefined);
        expect((await sessions.read(req(cookieOf(setCookie))))?.user).toEqual(user);
        await dropRows();
        vi.advanceTimersByTime(SESSION_RECHECK_MS - 100);
        expect((await sessions.userFromRequest(req(cookieOf(setCookie))))?.username).toBe("clinic");
        vi.advanceTimersByTime(200);
        expect(await sessions.userFromRequest(req(cookieOf(setCookie)))).toBeNull();
      },
    );

    it.runIf(dialect === "postgres")(
      "caches nothing on a store shared by instances: a session ended elsewhere is refused at once",
      async () => {
        store = await openTestStore(dialect);
        const sessions = await createSessionStore(store.rel, options);
        const { setCookie } = await sessions.create(user, undefined);
        expect((await sessions.read(req(cookieOf(setCookie))))?.user).toEqual(user);
        expect((await sessions.read(req(cookieOf(setCookie))))?.user).toEqual(user);
        // another instance's sign-out: the row is gone and no notice has arrived yet
        await dropRows();
        expect(await sessions.read(req(cookieOf(setCookie)))).toBeNull();
      },
    );

    it("hands each caller its own copy of the cached user", async () => {
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const { setCookie } = await sessions.create(user, undefined);
      const first = await sessions.userFromRequest(req(cookieOf(setCookie)));
      first!.roles.push("CONNECTOR_ADMIN");
      first!.name = "changed";
      expect(await sessions.userFromRequest(req(cookieOf(setCookie)))).toEqual(user);
    });

    it("answers a cached session at once (cachedUser), and says when the store must be asked", async () => {
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const { setCookie, token } = await sessions.create(user, undefined);
      const cookie = req(cookieOf(setCookie));
      expect(sessions.cachedUser(req("other=1"))).toBeNull(); // no session cookie: nobody, at once
      expect(sessions.cachedUser(cookie)).toBeUndefined(); // not read yet: ask the store
      expect(sessions.cachedUser(req(`${SESSION_COOKIE}=${token}.forged`))).toBeUndefined();
      await sessions.userFromRequest(cookie);
      // cached only where a cache is kept (the embedded store; none on a shared PostgreSQL)
      expect(sessions.cachedUser(cookie)).toEqual(dialect === "sqlite" ? user : undefined);
      const copy = sessions.cachedUser(cookie);
      if (copy) copy.roles.push("CONNECTOR_ADMIN");
      expect(await sessions.userFromRequest(cookie)).toEqual(user);
      await sessions.destroy(cookie);
      expect(sessions.cachedUser(cookie)).toBeUndefined();
      expect(await sessions.userFromRequest(cookie)).toBeNull();
    });

    it("never caches a cookie whose signature is wrong", async () => {
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const { setCookie, token } = await sessions.create(user, undefined);
      expect(await sessions.read(req(cookieOf(setCookie)))).not.toBeNull();
      expect(await sessions.read(req(`${SESSION_COOKIE}=${token}.forged`))).toBeNull();
      expect(await sessions.read(req(`${SESSION_COOKIE}=${token}.forged`))).toBeNull();
    });

    it("forgets a session at once on sign-out in this process", async () => {
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const a = await sessions.create(user, undefined);
      const b = await sessions.create({ ...user, sub: "other", username: "other" }, undefined);
      expect(await sessions.read(req(cookieOf(a.setCookie)))).not.toBeNull();
      expect(await sessions.read(req(cookieOf(b.setCookie)))).not.toBeNull();
      await sessions.destroy(req(cookieOf(a.setCookie)));
      expect(await sessions.read(req(cookieOf(a.setCookie)))).toBeNull();
      // the other session is read from the store again, and is still there
      expect((await sessions.read(req(cookieOf(b.setCookie))))?.user.username).toBe("other");
    });

    it("is emptied when any instance signs someone out (the change feed's sessions topic)", async () => {
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const { setCookie } = await sessions.create(user, undefined);
      expect(await sessions.read(req(cookieOf(setCookie)))).not.toBeNull();
      await dropRows();
      const before = store.rel.changes.version(SESSIONS_TOPIC);
      await store.rel.changes.notify(SESSIONS_TOPIC);
      // on PostgreSQL the notice comes back by LISTEN/NOTIFY: wait until this instance knows it
      await vi.waitFor(() => expect(store.rel.changes.version(SESSIONS_TOPIC)).toBeGreaterThan(before));
      expect(await sessions.read(req(cookieOf(setCookie)))).toBeNull();
    });

    it("does not outlive the session's absolute or idle expiry", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T10:00:00Z") });
      store = await openTestStore(dialect);
      const sessions = await createSessionStore(store.rel, options);
      const { setCookie } = await sessions.create(user, undefined);
      // read from the store 1.5 s before the absolute expiry: the cached entry, still young, ends with it
      vi.advanceTimersByTime(SESSION_ABSOLUTE_MS - 1500);
      await store.rel.db.updateTable("sessions").set({ last_seen_at: Date.now() }).execute();
      expect(await sessions.read(req(cookieOf(setCookie)))).not.toBeNull();
      vi.advanceTimersByTime(1000);
      expect(await sessions.read(req(cookieOf(setCookie)))).not.toBeNull();
      vi.advanceTimersByTime(500);
      expect(await sessions.read(req(cookieOf(setCookie)))).toBeNull();
      expect(await store.rel.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
    });
  });
});
