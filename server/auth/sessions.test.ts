import { describe, expect, it, vi } from "vitest";
import { openDatabase } from "../storage/database";
import { createSessionStore, SESSION_COOKIE, SESSION_IDLE_MS } from "./sessions";
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

describe("server-side sessions", () => {
  it("issues an opaque signed token and keeps the user server-side", () => {
    const store = createSessionStore(openDatabase(":memory:"), { secret: "s".repeat(32), secure: false });
    const { setCookie, token } = store.create(user, "id.token.here");
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE.replaceAll(".", "\\.")}=`));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).not.toContain("Secure");
    expect(setCookie).not.toContain("clinic");
    expect(store.read(req(cookieOf(setCookie)))?.user).toEqual(user);
    expect(store.read(req(`${SESSION_COOKIE}=${token}.forged`))).toBeNull();
    expect(store.read(req(`${SESSION_COOKIE}=${token}`))).toBeNull();
    expect(store.read(req())).toBeNull();
  });

  it("marks cookies Secure under https and gives a new id at each sign-in", () => {
    const store = createSessionStore(openDatabase(":memory:"), { secret: "s".repeat(32), secure: true });
    const a = store.create(user, undefined);
    const b = store.create(user, undefined);
    expect(a.setCookie).toContain("Secure");
    expect(a.token).not.toBe(b.token);
  });

  it("ends on logout and after the idle time", () => {
    vi.useFakeTimers({ now: new Date("2026-11-21T10:00:00Z") });
    try {
      const store = createSessionStore(openDatabase(":memory:"), { secret: "s".repeat(32), secure: false });
      const a = store.create(user, undefined);
      const destroyed = store.destroy(req(cookieOf(a.setCookie)));
      expect(destroyed.record?.user.username).toBe("clinic");
      expect(destroyed.setCookie).toContain("Max-Age=0");
      expect(store.read(req(cookieOf(a.setCookie)))).toBeNull();

      const b = store.create(user, undefined);
      vi.advanceTimersByTime(SESSION_IDLE_MS + 1000);
      expect(store.read(req(cookieOf(b.setCookie)))).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
