import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { ensureSecretsTable, keepSecret } from "../../server/storage/secrets";

/** the name of the server secret pseudonyms are derived from (server/storage/secrets.ts, in DATA_DIR) */
export const PSEUDONYM_SECRET = "pseudonym-secret";

/**
 * Fixes the pseudonym secret of a new DATA_DIR (its embedded store) before the server first starts
 * there, so that a recording (`npm run fixtures`) shows the same pseudonyms every time it is made.
 * Refused when the store already has a different secret: pseudonyms already handed out must not change.
 */
export async function fixPseudonymSecret(dataDir: string, value: string): Promise<void> {
  if (value.length < 16) throw new Error("the pseudonym secret must be at least 16 characters");
  const db = openDatabase(dataDir);
  try {
    const rel = openSqliteRelational(db);
    await ensureSecretsTable(rel);
    if ((await keepSecret(rel.db, PSEUDONYM_SECRET, value)) !== value)
      throw new Error(`${dataDir} already has another pseudonym secret`);
  } finally {
    db.close();
  }
}
