import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config";
import { chainKey, type ChainKey } from "./chain";
import { checkpointFile, type CheckpointFile } from "./checkpoints";

/**
 * What anchors the audit chain outside the database (decision 0044): the key its hashes are made
 * with, and the file its signed checkpoints go to.
 */
export interface AuditAnchor {
  key: ChainKey;
  /** undefined: no checkpoints (an in-memory store) */
  checkpoints?: CheckpointFile;
}

/**
 * AUDIT_KEY when set (required in production: several instances on one PostgreSQL must share it,
 * and a key beside the embedded store's file protects only against someone who holds the database
 * alone); else a key made once and kept in DATA_DIR/audit.key (mode 0600); for an in-memory store a
 * key of this process only.
 */
export function auditAnchor(config: Pick<Config, "dataDir" | "auditKey" | "auditCheckpoints">): AuditAnchor {
  const memory = config.dataDir === ":memory:";
  const key = chainKey(config.auditKey ?? (memory ? randomBytes(32) : keyFile(config.dataDir)));
  const where =
    config.auditCheckpoints ?? (memory ? undefined : path.join(config.dataDir, "audit-checkpoints.log"));
  return { key, checkpoints: where ? checkpointFile(where, key) : undefined };
}

function keyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, "audit.key");
  try {
    const text = readFileSync(file, "utf8").trim();
    // a key file another process made with a wider mode is narrowed
    chmodSync(file, 0o600);
    return Buffer.from(text, "base64url");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const made = randomBytes(32).toString("base64url");
  try {
    // "wx": two processes starting at once keep the first key written
    writeFileSync(file, `${made}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  }
  return Buffer.from(made, "base64url");
}
