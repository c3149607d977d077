import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import type { Relational } from "../storage/relational";
import { chainKey, legacyHashEntry, type ChainKey } from "./chain";
import { checkpointFile } from "./checkpoints";
import { auditAnchor, type AuditAnchor } from "./key";
import { createAuditLog, type AuditLog, type AuditRow as Row } from "./log";
import { GENESIS_HASH } from "./model";

/**
 * The audit chain against someone who can write the database (decision 0044): each tampering case of
 * issue 34, on the embedded store and on PostgreSQL (`node scripts/with-postgres.mjs npx vitest run …`).
 * The attacker has the database, not the key (AUDIT_KEY or DATA_DIR/audit.key) nor the checkpoint file.
 */

const DAY = 86_400_000;

describe.each(storeDialects())("the audit chain against a database writer, on %s", (dialect) => {
  let store: TestStore;
  let dir: string;
  let anchor: AuditAnchor;
  let log: AuditLog;
  const noTrigger = (name: string) =>
    sql.raw(
      `DROP TRIGGER ${name}${dialect === "postgres" ? ` ON ${name.startsWith("audit_purged") ? "audit_purged" : "audit_entries"}` : ""}`,
    );
  const rows = async (rel: Relational) =>
    ((await rel.db.selectFrom("audit_entries").selectAll().orderBy("seq").execute()) as Row[]).map((r) => ({
      ...r,
      seq: Number(r.seq),
    }));

  beforeEach(async () => {
    store = await openTestStore(dialect);
    dir = mkdtempSync(path.join(tmpdir(), "audit-anchor-"));
    anchor = auditAnchor({ dataDir: dir, auditKey: undefined, auditCheckpoints: undefined });
    log = await createAuditLog(store.rel, store.db, anchor);
    for (let i = 1; i <= 6; i++)
      await log.append({
        action: "patient.profile.read",
        actor: "clinic",
        target: `patient-${i}`,
        kind: "patient",
      });
    expect(await log.checkpoint()).toMatchObject({ seq: 6 });
  });
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps its key in DATA_DIR with mode 0600 and its checkpoints beside it, signed", async () => {
    expect(statSync(path.join(dir, "audit.key")).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, "audit-checkpoints.log")).mode & 0o777).toBe(0o600);
    // the same key when the hub starts again
    expect(
      auditAnchor({ dataDir: dir, auditKey: undefined, auditCheckpoints: undefined }).key.secret,
    ).toEqual(anchor.key.secret);
    const lines = readFileSync(path.join(dir, "audit-checkpoints.log"), "utf8").trim().split("\n");
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({
      seq: 6,
      sig: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // no new checkpoint while the head stays
    expect(await log.checkpoint()).toBeNull();
    expect(await log.verify()).toEqual({ ok: true, checked: 6 });
  });

  it("detects an actor rewritten and the chain recomputed after it", async () => {
    await sql`${noTrigger("audit_entries_no_update")}`.execute(store.rel.db);
    // the attacker recomputes every hash from the changed entry on, as the chain was made before: plain SHA-256
    let prev: string | undefined;
    for (const r of await rows(store.rel)) {
      if (r.seq < 3) {
        prev = r.hash;
        continue;
      }
      const e = {
        seq: r.seq,
        id: r.id,
        action: r.action,
        actor: r.seq === 3 ? "mallory" : r.actor,
        target: r.target,
        outcome: r.outcome,
        kind: r.kind,
        timestamp: r.timestamp,
        prevHash: prev!,
      };
      const hash = legacyHashEntry(e);
      await sql`UPDATE audit_entries SET actor = ${e.actor}, prev_hash = ${e.prevHash}, hash = ${hash} WHERE seq = ${r.seq}`.execute(
        store.rel.db,
      );
      prev = hash;
    }
    expect(await log.verify()).toMatchObject({
      ok: false,
      checked: 2,
      firstBroken: { seq: 3, reason: "entry content does not match its hash" },
    });
    // with a key of its own the attacker fares no better: the checkpoint holds the true hash
    const guessed = chainKey(Buffer.alloc(32, 1));
    expect(
      await createAuditLog(store.rel, store.db, {
        key: guessed,
        checkpoints: checkpointFile(path.join(dir, "x.log"), guessed),
      }).then((l) => l.verify()),
    ).toMatchObject({
      ok: false,
      firstBroken: { reason: expect.stringMatching(/not signed with this audit key/) },
    });
  });

  it("refuses DELETE of an entry in the database", async () => {
    await expect(sql`DELETE FROM audit_entries WHERE seq = 6`.execute(store.rel.db)).rejects.toThrow(
      /audit entries are append-only: only a retention purge removes one/,
    );
    await expect(sql`DELETE FROM audit_entries`.execute(store.rel.db)).rejects.toThrow(/append-only/);
    if (dialect === "postgres")
      await expect(sql`TRUNCATE audit_entries`.execute(store.rel.db)).rejects.toThrow(/cannot be truncated/);
    expect(await log.count()).toBe(6);
    // a tombstone of its own making lets a DELETE through the trigger, but it is not signed with the key
    const victim = (await rows(store.rel)).find((r) => r.seq === 6)!;
    await sql`INSERT INTO audit_purged (seq, kind, timestamp, prev_hash, hash, purged_at, sig)
      VALUES (6, ${victim.kind}, ${victim.timestamp}, ${victim.prev_hash}, ${victim.hash}, ${new Date().toISOString()}, ${"0".repeat(64)})`.execute(
      store.rel.db,
    );
    await sql`DELETE FROM audit_entries WHERE seq = 6`.execute(store.rel.db);
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: { seq: 6, reason: "tombstone is not signed with the audit key" },
    });
  });

  it("detects the newest entries deleted", async () => {
    await sql`${noTrigger("audit_entries_no_delete")}`.execute(store.rel.db);
    await sql`DELETE FROM audit_entries WHERE seq >= 5`.execute(store.rel.db);
    expect(await log.verify()).toMatchObject({
      ok: false,
      checked: 4,
      firstBroken: {
        seq: 5,
        reason: expect.stringMatching(
          /^entries 5–6 are missing: the checkpoint of .* saw the chain reach 6$/,
        ),
      },
    });
    // a restart does not paper over it: the checkpoint file is read again, no lower checkpoint is written
    const again = await createAuditLog(
      store.rel,
      store.db,
      auditAnchor({ dataDir: dir, auditKey: undefined, auditCheckpoints: undefined }),
    );
    expect(await again.verify()).toMatchObject({ ok: false, firstBroken: { seq: 5 } });
  });

  it("detects the table truncated", async () => {
    await sql`${noTrigger("audit_entries_no_delete")}`.execute(store.rel.db);
    if (dialect === "postgres") await sql`${noTrigger("audit_entries_no_truncate")}`.execute(store.rel.db);
    await sql
      .raw(dialect === "postgres" ? "TRUNCATE audit_entries" : "DELETE FROM audit_entries")
      .execute(store.rel.db);
    expect(await log.count()).toBe(0);
    expect(await log.verify()).toMatchObject({
      ok: false,
      checked: 0,
      firstBroken: { seq: 1, reason: expect.stringMatching(/^entries 1–6 are missing/) },
    });
  });

  it("detects a rewritten entry at a checkpoint even when its content is made to match (the key held)", async () => {
    // the worst case: someone with the key rewrites the chain; the checkpoint outside still holds the old head
    await sql`${noTrigger("audit_entries_no_update")}`.execute(store.rel.db);
    const key = anchor.key;
    let prev: string | undefined;
    for (const r of await rows(store.rel)) {
      if (r.seq < 2) {
        prev = r.hash;
        continue;
      }
      const canonical = JSON.stringify([
        r.seq,
        r.id,
        r.action,
        r.seq === 2 ? "mallory" : r.actor,
        r.target,
        r.outcome,
        r.kind,
        r.timestamp,
        prev,
      ]);
      const hash = key.mac(canonical);
      await sql`UPDATE audit_entries SET actor = ${r.seq === 2 ? "mallory" : r.actor}, prev_hash = ${prev!}, hash = ${hash} WHERE seq = ${r.seq}`.execute(
        store.rel.db,
      );
      prev = hash;
    }
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: {
        seq: 6,
        reason: expect.stringMatching(/differs from the checkpoint of .*: the chain was rewritten/),
      },
    });
  });

  it("refuses a checkpoint line not signed with the key", async () => {
    appendFileSync(
      path.join(dir, "audit-checkpoints.log"),
      `${JSON.stringify({ seq: 2, hash: GENESIS_HASH, at: "x", sig: "0" })}\n`,
    );
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: {
        reason: expect.stringMatching(/of the checkpoint file is not signed with the audit key/),
      },
    });
  });

  it("lets retention remove entries: its tombstones are signed, and the chain and its checkpoints still verify", async () => {
    // the purge itself (the retention service picks what is past its period: server/audit/retention.ts)
    expect(await log.purge("patient", new Date(Date.now() + DAY).toISOString())).toBe(6);
    expect(await log.count()).toBe(0);
    const tombs = (await store.rel.db.selectFrom("audit_purged").selectAll().execute()) as {
      sig: string | null;
    }[];
    expect(tombs).toHaveLength(6);
    expect(tombs.every((t) => /^[0-9a-f]{64}$/.test(t.sig ?? ""))).toBe(true);
    await log.append({ action: "audit.purge", actor: "system", target: "patient: 6", kind: "audit" });
    // the checkpoint at entry 6 is matched by its tombstone's hash
    expect(await log.verify()).toEqual({ ok: true, checked: 1 });
    expect(await log.checkpoint()).toMatchObject({ seq: 7 });
  });
});

describe.each(storeDialects())("a chain made before the key, on %s", (dialect) => {
  let store: TestStore;
  let key: ChainKey;
  afterEach(() => store?.close());

  /** the schema and entries of a DATA_DIR from before decision 0044: migrations audit-1 and audit-2 only, plain SHA-256 */
  async function legacyStore() {
    store = await openTestStore(dialect);
    const { rel } = store;
    // the log of before, made by the migrations as they were, then its keyed migration held back
    await rel.migrate("audit-3-keyed", async () => {});
    await createAuditLog(rel);
    await sql`DELETE FROM migrations WHERE name = 'audit-3-keyed'`.execute(rel.db);
    let prev = GENESIS_HASH;
    for (let seq = 1; seq <= 4; seq++) {
      const e = {
        seq,
        id: `legacy-${seq}`,
        action: "catalogue.create",
        actor: "clinic",
        target: `ds-${seq}`,
        outcome: "success",
        kind: "catalogue",
        timestamp: new Date(Date.UTC(2026, 0, seq)).toISOString(),
        prevHash: prev,
      };
      const hash = legacyHashEntry(e);
      await sql`INSERT INTO audit_entries (seq, id, action, actor, target, outcome, kind, timestamp, prev_hash, hash)
        VALUES (${seq}, ${e.id}, ${e.action}, ${e.actor}, ${e.target}, ${e.outcome}, ${e.kind}, ${e.timestamp}, ${prev}, ${hash})`.execute(
        rel.db,
      );
      prev = hash;
    }
    key = chainKey(Buffer.alloc(32, 3));
    return rel;
  }

  it("still verifies after the upgrade, and continues keyed", async () => {
    const rel = await legacyStore();
    const log = await createAuditLog(rel, store.db, { key });
    expect(await log.verify()).toEqual({ ok: true, checked: 4 });
    const next = await log.append({ action: "a", actor: "b", target: "c", kind: "audit" });
    expect(next.seq).toBe(5);
    expect(await log.verify()).toEqual({ ok: true, checked: 5 });
  });

  it("cannot have its old part rebuilt: the keyed part and its signed marker hold the old head", async () => {
    const rel = await legacyStore();
    const log = await createAuditLog(rel, store.db, { key });
    await log.append({ action: "a", actor: "b", target: "c", kind: "audit" });
    await sql`${sql.raw(`DROP TRIGGER audit_entries_no_update${dialect === "postgres" ? " ON audit_entries" : ""}`)}`.execute(
      rel.db,
    );
    // entry 2 rewritten and entries 2–4 rehashed (plain SHA-256, as they were made)
    let prev = (
      (await rel.db.selectFrom("audit_entries").select("hash").where("seq", "=", 1).executeTakeFirst()) as {
        hash: string;
      }
    ).hash;
    for (let seq = 2; seq <= 4; seq++) {
      const r = (await rel.db
        .selectFrom("audit_entries")
        .selectAll()
        .where("seq", "=", seq)
        .executeTakeFirst()) as Row;
      const e = {
        seq,
        id: r.id,
        action: r.action,
        actor: seq === 2 ? "mallory" : r.actor,
        target: r.target,
        outcome: r.outcome,
        kind: r.kind,
        timestamp: r.timestamp,
        prevHash: prev,
      };
      const hash = legacyHashEntry(e);
      await sql`UPDATE audit_entries SET actor = ${e.actor}, prev_hash = ${prev}, hash = ${hash} WHERE seq = ${seq}`.execute(
        rel.db,
      );
      prev = hash;
    }
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: { seq: 5, reason: "link to the previous entry does not match" },
    });
  });
});

describe("the audit key from the environment", () => {
  it("is used as given, and no key file is made", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "audit-key-"));
    try {
      const a = auditAnchor({
        dataDir: dir,
        auditKey: "k".repeat(40),
        auditCheckpoints: path.join(dir, "cp.log"),
      });
      expect(a.key.secret.toString()).toBe("k".repeat(40));
      expect(() => statSync(path.join(dir, "audit.key"))).toThrow();
      a.checkpoints!.append({ seq: 1, hash: "h" });
      expect(statSync(path.join(dir, "cp.log")).size).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
