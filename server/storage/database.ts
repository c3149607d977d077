import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";

export type Db = Database.Database;

/**
 * The embedded store: one SQLite file in DATA_DIR. WAL with synchronous=FULL so that a write
 * acknowledged to a client survives a crash of the process or the machine.
 */
export function openDatabase(dataDir: string, file = "hub.sqlite"): Db {
  if (dataDir !== ":memory:") mkdirSync(dataDir, { recursive: true });
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
