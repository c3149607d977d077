import { randomBytes } from "node:crypto";
import { migrate, type Db } from "./database";

/** Secrets generated once and kept in the embedded store (DATA_DIR), e.g. the session secret when SESSION_SECRET is unset. */
export function getOrCreateSecret(db: Db, name: string, bytes = 32): string {
  migrate(db, "secrets-1", [
    "CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL)",
  ]);
  const row = db.prepare("SELECT value FROM secrets WHERE name = ?").get(name) as
    { value: string } | undefined;
  if (row) return row.value;
  const value = randomBytes(bytes).toString("base64url");
  db.prepare("INSERT OR IGNORE INTO secrets (name, value, created_at) VALUES (?, ?, ?)").run(
    name,
    value,
    new Date().toISOString(),
  );
  return (db.prepare("SELECT value FROM secrets WHERE name = ?").get(name) as { value: string }).value;
}
