import Database from "better-sqlite3";
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from "node:fs";
import path from "node:path";

export type Db = Database.Database;

/**
 * DATA_DIR holds health data, keys and secrets: the directory is made (or tightened to) 0700 and
 * every file in it 0600, those left by an earlier version included. SQLite gives a database's -wal
 * and -shm files the mode of the database file, so a database created 0600 here keeps them 0600.
 */
export function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir, 0o700);
  for (const name of readdirSync(dataDir)) {
    const file = path.join(dataDir, name);
    // regular files only, never through a link (a link's target may be anyone's)
    if (lstatSync(file).isFile()) tighten(file, 0o600);
  }
}

function tighten(file: string, mode: number): void {
  if ((lstatSync(file).mode & 0o777) !== mode) chmodSync(file, mode);
}

/**
 * The embedded store: one SQLite file in DATA_DIR (private: `privateDataDir`). WAL with
 * synchronous=FULL so that a write acknowledged to a client survives a crash of the process or the
 * machine.
 */
export function openDatabase(dataDir: string, file = "hub.sqlite"): Db {
  if (dataDir !== ":memory:") {
    privateDataDir(dataDir);
    // created 0600 before SQLite opens it (SQLite would create it with the process's umask)
    closeSync(openSync(path.join(dataDir, file), "a", 0o600));
  }
  const db = new Database(dataDir === ":memory:" ? ":memory:" : path.join(dataDir, file));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  return db;
}

/** Each module owns its tables and applies its own idempotent migrations, named uniquely. */
export function migrate(db: Db, name: string, statements: string[]): void {
  db.exec("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const done = db.prepare("SELECT 1 FROM migrations WHERE name = ?").get(name);
  if (done) return;
  db.transaction(() => {
    for (const s of statements) db.exec(s);
    db.prepare("INSERT INTO migrations (name, applied_at) VALUES (?, ?)").run(name, new Date().toISOString());
  }).immediate();
}
