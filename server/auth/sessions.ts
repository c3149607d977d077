import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { decodeJwt } from "jose";
import { sameSecret } from "../config/same-secret";
import type { Relational, Sql } from "../storage/relational";
import type { SessionUser } from "./user";

/**
 * Server-side sessions. The cookie `app-auth.session-token` holds only an opaque random token
 * (signed with SESSION_SECRET); the database keeps its SHA-256, the user and the ID token.
 * Lifetime: 12 h absolute, 2 h idle; activity extends the idle window (written at most once a minute).
 *
 * A session signed in at an external provider that issued a refresh token is re-checked there (the
 * `providerCheck` option, OIDC_SESSION_CHECK_SECONDS): a read finding the last confirmation older than
 * that waits for one refresh-token grant (bounded by UPSTREAM_TIMEOUT_MS); a provider that says the
 * session is gone ends it, a provider that cannot be asked leaves it working until
 * OIDC_SESSION_GRACE_SECONDS after its last confirmation, and refused after that until the provider
 * confirms it again (docs/decisions/0052-provider-session-re-check.md). The refresh token is stored
 * encrypted with a key derived from the cookie's token, which the store never holds.
 */
export const SESSION_COOKIE = "app-auth.session-token";
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000;
const TOUCH_EVERY_MS = 60 * 1000;
/**
 * How long a verified cookie is answered from this process's session cache before the store is read
 * again, on the embedded store (one process: a sign-out or expiry takes effect at once). On a store
 * shared by several instances (PostgreSQL) nothing is cached: a sign-out on one instance must end the
 * session on every other at once, and the change notice (NOTIFY) arrives after the sign-out's answer.
 */
export const SESSION_RECHECK_MS = 2000;
/** cookies kept in the session cache at most (the oldest is dropped first) */
const CACHE_MAX = 10_000;
/** the change-feed topic a sign-out bumps: every instance empties its session cache */
export const SESSIONS_TOPIC = "sessions";

export interface SessionRecord {
  user: SessionUser;
  idToken: string | undefined;
  createdAt: number;
  expiresAt: number;
}

/**
 * What a session store reads of a request: its headers (the Cookie) and, in static mode, its URL.
 * A `Request` is one; so is the dispatcher's request head (server/http/request-head.ts).
 */
export interface SessionRequest {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/** what the identity provider says of a session it issued a refresh token for */
export type ProviderVerdict =
  | {
      state: "active";
      refreshToken?: string;
      /** the refreshed ID token and its user: the session takes them (roles changed at the provider) */
      idToken?: string;
      user?: SessionUser;
    }
  | { state: "ended"; reason: string }
  | { state: "unreachable"; reason: string };

/** the re-check of provider sessions (see the header) */
export interface ProviderCheck {
  /** a session is confirmed at the provider at most this often (and at least, while in use) */
  everyMs: number;
  /** unconfirmed (provider unreachable) for longer than this since the last confirmation: refused */
  graceMs: number;
  /** one refresh-token grant, bounded by UPSTREAM_TIMEOUT_MS */
  refresh(refreshToken: string): Promise<ProviderVerdict>;
}

export type SessionStore = Awaited<ReturnType<typeof createSessionStore>>;

interface SessionRow {
  user_json: string;
  id_token: string | null;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  refresh_token: string | null;
  checked_at: number | null;
}

/**
 * Sessions in the relational store (server/storage/relational): every instance sharing it reads
 * the sessions any of them created. A read is one query by primary key.
 */
export async function createSessionStore(
  rel: Relational,
  opts: { secret: string; secure: boolean; providerCheck?: ProviderCheck },
) {
  await rel.migrate("sessions-1", async (m) => {
    await m.schema
      .createTable("sessions")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("user_json", "text", (c) => c.notNull())
      .addColumn("id_token", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("last_seen_at", "bigint", (c) => c.notNull())
      .execute();
    await m.schema.createIndex("sessions_expires").on("sessions").column("expires_at").execute();
  });
  // the provider's refresh token (encrypted) and when the provider last confirmed the session
  await rel.migrate("sessions-2-provider-check", async (m) => {
    await m.schema.alterTable("sessions").addColumn("refresh_token", "text").execute();
    await m.schema.alterTable("sessions").addColumn("checked_at", "bigint").execute();
  });
  // which patient record a patient's username stands for, kept from their sign-ins: the audit view names a
  // patient who acted by that record's pseudonym, whatever the provider calls them (server/privacy/audit-view.ts)
  await rel.migrate("sessions-3-patient-accounts", async (m) => {
    await m.schema
      .createTable("patient_accounts")
      .addColumn("username", "text", (c) => c.primaryKey())
      .addColumn("patient_id", "text", (c) => c.notNull())
      .execute();
  });
  // the back-channel logout tokens received (issuer and jti), until they would be refused anyway
  await rel.migrate("sessions-4-logout-tokens", async (m) => {
    await m.schema
      .createTable("logout_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
  });
  const check = opts.providerCheck;
  const remove = (key: string) => rel.db.deleteFrom("sessions").where("token_hash", "=", key).execute();

  const sign = (token: string) => createHmac("sha256", opts.secret).update(token).digest("base64url");
  const hash = (token: string) => createHash("sha256").update(token).digest("hex");
  const attrs = `Path=/; HttpOnly; SameSite=Lax${opts.secure ? "; Secure" : ""}`;

  const sessionCookie = (request: SessionRequest) =>
    readCookie(request.headers.get("cookie"), SESSION_COOKIE);

  /** a session cookie's value and token when its signature holds */
  function verifiedOf(value: string | null): { value: string; token: string } | null {
    if (!value) return null;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return null;
    const token = value.slice(0, dot);
    return sameSecret(value.slice(dot + 1), sign(token)) ? { value, token } : null;
  }

  /**
   * The session cache: cookie value (verified when it was put here) → the record read from the
   * store, for SESSION_RECHECK_MS (embedded store only). An entry holds only while the feed's sessions version is the one
   * it was read under (a sign-out anywhere bumps it) and the session is neither expired nor idle.
   * Reads of the same cookie in flight are shared.
   */
  interface Cached {
    key: string;
    record: SessionRecord;
    lastSeen: number;
    checkedAt: number;
    /** cached no longer than this (the provider's next re-check is due then) */
    until: number;
    version: string;
  }
  const recheckMs = rel.dialect === "sqlite" ? SESSION_RECHECK_MS : 0;
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<SessionRecord | null>>();
  // sign-outs in this process count at once (on PostgreSQL the feed's own notice comes back later)
  let signOuts = 0;
  const feedVersion = () => `${signOuts}/${rel.changes.version(SESSIONS_TOPIC)}`;
  // a sign-out on any instance (this one included) empties the cache (it lives as long as the store)
  rel.changes.subscribe(SESSIONS_TOPIC, () => cache.clear());

  async function readStored(value: string, token: string, version: string): Promise<SessionRecord | null> {
    const key = hash(token);
    const row = (await rel.db
      .selectFrom("sessions")
      .selectAll()
      .where("token_hash", "=", key)
      .executeTakeFirst()) as SessionRow | undefined;
    if (!row) return null;
    const now = Date.now();
    let lastSeen = Number(row.last_seen_at);
    if (Number(row.expires_at) <= now || lastSeen + SESSION_IDLE_MS <= now) {
      await remove(key);
      return null;
    }
    let confirmedAt = Number(row.checked_at ?? row.created_at);
    if (check && row.refresh_token) {
      const outcome = await providerCheck(key, token, row, confirmedAt, now);
      if (outcome === "ended") {
        await remove(key);
        return null;
      }
      if (outcome === "refused") return null;
      confirmedAt = outcome;
    }
    if (now - lastSeen > TOUCH_EVERY_MS) {
      await rel.db.updateTable("sessions").set({ last_seen_at: now }).where("token_hash", "=", key).execute();
      lastSeen = now;
    }
    const record: SessionRecord = {
      user: JSON.parse(row.user_json) as SessionUser,
      idToken: row.id_token ?? undefined,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
    // kept only when no sign-out was seen while the row was read
    if (recheckMs > 0 && feedVersion() === version) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      const until = check && row.refresh_token ? confirmedAt + check.everyMs : Infinity;
      cache.set(value, { key, record, lastSeen, checkedAt: now, until, version });
    }
    return record;
  }

  /** the cached record of a session cookie's value: undefined when not (or no longer) cached */
  function cachedRecord(value: string): SessionRecord | undefined {
    const hit = cache.get(value);
    if (!hit) return undefined;
    const now = Date.now();
    if (
      hit.version === feedVersion() &&
      now - hit.checkedAt < recheckMs &&
      now < hit.until &&
      hit.record.expiresAt > now &&
      hit.lastSeen + SESSION_IDLE_MS > now
    )
      return copyOf(hit.record)!;
    cache.delete(value);
    return undefined;
  }

  /**
   * Until this time no re-check calls the provider (after one found it unreachable, so that an outage
   * costs one request per session and interval UPSTREAM_TIMEOUT_MS, not every request).
   */
  let providerAwayUntil = 0;
  /**
   * The provider's word on a stored session: "ended" (gone there), "refused" (unconfirmed for longer
   * than the grace) or the time of its last confirmation (now, when it was just confirmed).
   */
  async function providerCheck(
    key: string,
    token: string,
    row: SessionRow,
    confirmedAt: number,
    now: number,
  ): Promise<"ended" | "refused" | number> {
    const sealed = row.refresh_token!;
    const c = check!;
    if (now - confirmedAt < c.everyMs) return confirmedAt;
    const unconfirmed = (reason?: string) => {
      const refused = now - confirmedAt > c.graceMs;
      // logged when the provider was asked (not for each request while it is known to be away)
      if (reason)
        console.warn(
          `[auth] provider session not re-checked (${reason}); ${refused ? "refused: unconfirmed for longer than the grace" : "kept within the grace"}`,
        );
      return refused ? ("refused" as const) : confirmedAt;
    };
    // the provider was unreachable moments ago: not asked again yet
    if (now < providerAwayUntil) return unconfirmed();
    const refreshToken = unseal(token, sealed);
    if (!refreshToken) return "ended";
    let verdict: ProviderVerdict;
    try {
      verdict = await c.refresh(refreshToken);
    } catch (e) {
      verdict = { state: "unreachable", reason: e instanceof Error ? e.message : String(e) };
    }
    if (verdict.state === "unreachable") {
      providerAwayUntil = Date.now() + c.everyMs;
      return unconfirmed(verdict.reason);
    }
    if (verdict.state === "ended") {
      console.info(`[auth] session ended: the identity provider says ${verdict.reason}`);
      return "ended";
    }
    providerAwayUntil = 0;
    const confirmed = Date.now();
    // the user as the provider now describes it (roles or organisation changed there): same subject only
    let changed: { user_json: string; id_token: string } | null = null;
    if (verdict.user) {
      const before = JSON.parse(row.user_json) as SessionUser;
      if (verdict.user.sub !== before.sub) {
        console.warn("[auth] session ended: the refreshed ID token names another subject");
        return "ended";
      }
      const user_json = JSON.stringify(verdict.user);
      if (user_json !== row.user_json) {
        console.info(
          `[auth] session of ${before.username}: the identity provider changed its roles or organisation`,
        );
        changed = { user_json, id_token: verdict.idToken ?? row.id_token ?? "" };
        Object.assign(row, changed);
      }
    }
    await rel.db
      .updateTable("sessions")
      .set({
        checked_at: confirmed,
        ...(verdict.refreshToken ? { refresh_token: seal(token, verdict.refreshToken) } : {}),
        ...(changed ?? {}),
      })
      .where("token_hash", "=", key)
      .execute();
    return confirmed;
  }

  /**
   * Deletes the sessions `keys` and empties every instance's session cache, in one transaction;
   * this process forgets them (`forget`) before, and again after: a read that began during the
   * delete must not keep what it found.
   */
  /** deletes the sessions of `keys`; gives their sealed refresh tokens, as they were when deleted */
  async function signOut(keys: string[], forget: () => void): Promise<(string | null)[]> {
    signOuts++;
    forget();
    const gone = await rel.tx(async (tx) => {
      const rows = await tx
        .deleteFrom("sessions")
        .where("token_hash", "in", keys)
        .returning("refresh_token")
        .execute();
      await rel.changes.bump(tx, SESSIONS_TOPIC);
      return rows;
    });
    signOuts++;
    forget();
    return gone.map((row) => row.refresh_token);
  }

  async function read(request: SessionRequest): Promise<SessionRecord | null> {
    const value = sessionCookie(request);
    if (!value) return null;
    const known = cachedRecord(value);
    if (known) return known;
    const shared = inFlight.get(value);
    if (shared) return copyOf(await shared);
    const checked = verifiedOf(value);
    if (!checked) return null;
    const pending = readStored(value, checked.token, feedVersion()).finally(() => inFlight.delete(value));
    inFlight.set(value, pending);
    return copyOf(await pending);
  }

  return {
    /**
     * `tx`: the transaction of the sign-in that issues the session (it commits with it);
     * `refreshToken`: the provider's, by which the session is re-checked there
     */
    async create(
      user: SessionUser,
      idToken: string | undefined,
      createOpts: { tx?: Sql; refreshToken?: string } = {},
    ) {
      const token = randomBytes(32).toString("base64url");
      const now = Date.now();
      const q = createOpts.tx ?? rel.db;
      if (user.patientId && user.roles.includes("PATIENT")) {
        const patient_id = user.patientId;
        await q
          .insertInto("patient_accounts")
          .values({ username: user.username, patient_id })
          .onConflict((oc) => oc.column("username").doUpdateSet({ patient_id }))
          .execute();
      }
      await q
        .insertInto("sessions")
        .values({
          token_hash: hash(token),
          user_json: JSON.stringify(user),
          id_token: idToken ?? null,
          created_at: now,
          expires_at: now + SESSION_ABSOLUTE_MS,
          last_seen_at: now,
          refresh_token: check && createOpts.refreshToken ? seal(token, createOpts.refreshToken) : null,
          checked_at: now,
        })
        .execute();
      const maxAge = Math.floor(SESSION_ABSOLUTE_MS / 1000);
      return { token, setCookie: `${SESSION_COOKIE}=${token}.${sign(token)}; ${attrs}; Max-Age=${maxAge}` };
    },
    read,
    /** the patient records these usernames signed in for (as patients), by username */
    async patientsOf(usernames: readonly string[]): Promise<Map<string, string>> {
      if (!usernames.length) return new Map();
      const rows = (await rel.db
        .selectFrom("patient_accounts")
        .select(["username", "patient_id"])
        .where("username", "in", [...usernames])
        .execute()) as { username: string; patient_id: string }[];
      return new Map(rows.map((r) => [r.username, r.patient_id]));
    },
    async userFromRequest(request: SessionRequest) {
      return (await read(request))?.user ?? null;
    },
    /**
     * The user of a session found in the session cache, at once (null: no session cookie); undefined
     * when the store must be asked (`userFromRequest`). What the /api dispatcher tries first.
     */
    cachedUser(request: SessionRequest) {
      const value = sessionCookie(request);
      return value ? cachedRecord(value)?.user : null;
    },
    /** removes the session; returns the record that was removed and a cookie that clears it */
    async destroy(request: SessionRequest) {
      const record = await read(request);
      const verified = verifiedOf(sessionCookie(request));
      let refreshToken: string | undefined;
      if (verified) {
        const [sealed] = await signOut([hash(verified.token)], () => {
          cache.delete(verified.value);
          inFlight.delete(verified.value);
        });
        // the provider's refresh token of the session ended here, for its revocation at sign-out
        if (sealed) refreshToken = unseal(verified.token, sealed) ?? undefined;
      }
      return { record, refreshToken, setCookie: `${SESSION_COOKIE}=; ${attrs}; Max-Age=0` };
    },
    /**
     * Ends the sessions made from one session at the identity provider (OIDC back-channel logout): those
     * of subject `sub` whose ID token names `sid` (every session of `sub` without a `sid`). Returns how many,
     * or null (and nothing ended) for a logout token `seen` before.
     */
    async endProviderSession(
      { sub, sid }: { sub?: string; sid?: string },
      seen?: { id: string; until: number },
    ): Promise<number | null> {
      if (seen) {
        const first = await rel.db
          .insertInto("logout_tokens")
          .values({ id: seen.id, expires_at: seen.until })
          .onConflict((oc) => oc.column("id").doNothing())
          .executeTakeFirst();
        if (Number(first.numInsertedOrUpdatedRows) === 0) return null;
      }
      if (!sub && !sid) return 0;
      let query = rel.db.selectFrom("sessions").select(["token_hash", "user_json", "id_token"]);
      // the user's JSON begins with its subject: a pre-filter, checked exactly below
      if (sub) query = query.where("user_json", "like", `{"sub":${JSON.stringify(sub)}%`);
      const rows = (await query.execute()) as {
        token_hash: string;
        user_json: string;
        id_token: string | null;
      }[];
      const keys = rows
        .filter((r) => !sub || (JSON.parse(r.user_json) as SessionUser).sub === sub)
        .filter((r) => !sid || sidOf(r.id_token) === sid)
        .map((r) => r.token_hash);
      if (keys.length === 0) return 0;
      await signOut(keys, () => cache.clear());
      return keys.length;
    },
    async purgeExpired() {
      const now = Date.now();
      const res = await rel.db
        .deleteFrom("sessions")
        .where((eb) => eb.or([eb("expires_at", "<=", now), eb("last_seen_at", "<=", now - SESSION_IDLE_MS)]))
        .executeTakeFirst();
      await rel.db.deleteFrom("logout_tokens").where("expires_at", "<=", now).execute();
      return Number(res.numDeletedRows);
    },
  };
}

/**
 * The refresh token encrypted (AES-256-GCM) with a key derived from the session's cookie token: the
 * store holds only the token's hash, so its rows alone do not give the provider's refresh tokens.
 */
function seal(token: string, refreshToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(token), iv);
  const data = Buffer.concat([cipher.update(refreshToken, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64url");
}

/** the refresh token `seal` stored, or null when it does not open (it then names no session) */
function unseal(token: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", sealKey(token), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

const sealKey = (token: string) => createHmac("sha256", token).update("provider-refresh-token").digest();

/** the provider session (`sid`) an ID token stored at sign-in names (it was verified then) */
function sidOf(idToken: string | null): string | undefined {
  try {
    const { sid } = decodeJwt(idToken ?? "");
    return typeof sid === "string" ? sid : undefined;
  } catch {
    return undefined;
  }
}

/** each caller gets its own copy: handlers may not share (or change) one cached object */
function copyOf(record: SessionRecord | null): SessionRecord | null {
  if (!record) return null;
  return { ...record, user: { ...record.user, roles: record.user.roles.slice() } };
}

/**
 * The value of the first cookie called `name` in a Cookie header (`a=1; b=2`), URI-decoded when it
 * decodes, else as sent. Scans for the name instead of splitting the header: it is read on every
 * request, and a browser's header holds every cookie of the site.
 */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  let from = 0;
  while (from < header.length) {
    const at = header.indexOf(name, from);
    if (at < 0) return null;
    const end = header.indexOf(";", at);
    const partEnd = end < 0 ? header.length : end;
    const start = header.lastIndexOf(";", at) + 1;
    const eq = header.indexOf("=", start);
    // the name found must be the whole name of its part (blanks around it aside)
    if (eq >= 0 && eq < partEnd && header.slice(start, eq).trim() === name) {
      const v = header.slice(eq + 1, partEnd).trim();
      if (v.indexOf("%") < 0) return v;
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }
    from = end < 0 ? header.length : end + 1;
  }
  return null;
}
