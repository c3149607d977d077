import { openDatabase } from "../storage/database";
import { getOrCreateSecret } from "../storage/secrets";

/** the name of the server secret pseudonyms are derived from (server/storage/secrets.ts, in DATA_DIR) */
export const PSEUDONYM_SECRET = "pseudonym-secret";

/**
 * Fixes the pseudonym secret of a new DATA_DIR before the server first starts there, so that a
 * recording (`npm run fixtures`) shows the same pseudonyms every time it is made. Refused when the
 * store already has a different secret: pseudonyms already handed out must not change.
 */
export function fixPseudonymSecret(dataDir: string, value: string): void {
  if (value.length < 16) throw new Error("the pseudonym secret must be at least 16 characters");
  const db = openDatabase(dataDir);
  try {
    // the secrets table, created as server/storage/secrets.ts creates it (a throwaway entry)
    getOrCreateSecret(db, "__migrate__", 1);
    db.prepare("DELETE FROM secrets WHERE name = '__migrate__'").run();
    db.prepare("INSERT OR IGNORE INTO secrets (name, value, created_at) VALUES (?, ?, ?)").run(
      PSEUDONYM_SECRET,
      value,
      new Date().toISOString(),
    );
    if (getOrCreateSecret(db, PSEUDONYM_SECRET) !== value)
      throw new Error(`${dataDir} already has another pseudonym secret`);
  } finally {
    db.close();
  }
}
