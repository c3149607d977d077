import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { migrate, type Db } from "../storage/database";
import type { SessionUser } from "./user";

/**
 * Server-side sessions. The cookie `app-auth.session-token` holds only an opaque random token
 * (signed with SESSION_SECRET); the database keeps its SHA-256, the user and the ID token.
 * Lifetime: 12 h absolute, 2 h idle; activity extends the idle window (written at most once a minute).
 */
export const SESSION_COOKIE = "app-auth.session-token";
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000;
const TOUCH_EVERY_MS = 60 * 1000;

export interface SessionRecord {
  user: SessionUser;
  idToken: string | undefined;
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  create(user: SessionUser, idToken: string | undefined): { token: string; setCookie: string };
  read(request: Request): SessionRecord | null;
  userFromRequest(request: Request): Promise<SessionUser | null>;
  /** removes the session; returns the record that was removed and a cookie that clears it */
  destroy(request: Request): { record: SessionRecord | null; setCookie: string };
  purgeExpired(now?: number): number;
}

export function createSessionStore(db: Db, opts: { secret: string; secure: boolean }): SessionStore {
  migrate(db, "sessions-1", [
    `CREATE TABLE sessions (
      token_hash TEXT PRIMARY KEY,
      user_json TEXT NOT NULL,
      id_token TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL
    )`,
    "CREATE INDEX sessions_expires ON sessions(expires_at)",
  ]);
  const insert = db.prepare(
    "INSERT INTO sessions (token_hash, user_json, id_token, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const select = db.prepare("SELECT * FROM sessions WHERE token_hash = ?");
  const touch = db.prepare("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?");
  const remove = db.prepare("DELETE FROM sessions WHERE token_hash = ?");
  const purge = db.prepare("DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?");

  const sign = (token: string) => createHmac("sha256", opts.secret).update(token).digest("base64url");
  const hash = (token: string) => createHash("sha256").update(token).digest("hex");
  const attrs = `Path=/; HttpOnly; SameSite=Lax${opts.secure ? "; Secure" : ""}`;

  function tokenFrom(request: Request): string | null {
    const value = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
    if (!value) return null;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return null;
    const token = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(sign(token));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return token;
  }

  function read(request: Request): SessionRecord | null {
    const token = tokenFrom(request);
    if (!token) return null;
    const key = hash(token);
    const row = select.get(key) as
      | {
          user_json: string;
          id_token: string | null;
          created_at: number;
          expires_at: number;
          last_seen_at: number;
        }
      | undefined;
    if (!row) return null;
    const now = Date.now();
    if (row.expires_at <= now || row.last_seen_at + SESSION_IDLE_MS <= now) {
      remove.run(key);
      return null;
    }
    if (now - row.last_seen_at > TOUCH_EVERY_MS) touch.run(now, key);
    return {
      user: JSON.parse(row.user_json) as SessionUser,
      idToken: row.id_token ?? undefined,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  return {
    create(user, idToken) {
      const token = randomBytes(32).toString("base64url");
      const now = Date.now();
      insert.run(hash(token), JSON.stringify(user), idToken ?? null, now, now + SESSION_ABSOLUTE_MS, now);
      const maxAge = Math.floor(SESSION_ABSOLUTE_MS / 1000);
      return { token, setCookie: `${SESSION_COOKIE}=${token}.${sign(token)}; ${attrs}; Max-Age=${maxAge}` };
    },
    read,
    async userFromRequest(request) {
      return read(request)?.user ?? null;
    },
    destroy(request) {
      const record = read(request);
      const token = tokenFrom(request);
      if (token) remove.run(hash(token));
      return { record, setCookie: `${SESSION_COOKIE}=; ${attrs}; Max-Age=0` };
    },
    purgeExpired(now = Date.now()) {
      return purge.run(now, now - SESSION_IDLE_MS).changes;
    },
  };
}

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const v = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }
  }
  return null;
}
