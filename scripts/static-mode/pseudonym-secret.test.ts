import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { getOrCreateSecret } from "../../server/storage/secrets";
import { fixPseudonymSecret, PSEUDONYM_SECRET } from "./pseudonym-secret";

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(path.join(tmpdir(), "hub-privacy-secret-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("fixPseudonymSecret", () => {
  it("sets the secret the server then reads, and refuses to change one already there", async () => {
    const dir = fresh();
    await fixPseudonymSecret(dir, "a-fixed-secret-for-recording");
    await fixPseudonymSecret(dir, "a-fixed-secret-for-recording");
    const db = openDatabase(dir);
    try {
      const rel = openSqliteRelational(db);
      expect(await getOrCreateSecret(rel, PSEUDONYM_SECRET)).toBe("a-fixed-secret-for-recording");
      expect(await getOrCreateSecret(rel, "session-secret")).toBe(
        await getOrCreateSecret(rel, "session-secret"),
      );
      expect(await getOrCreateSecret(rel, "session-secret")).not.toBe("a-fixed-secret-for-recording");
    } finally {
      db.close();
    }
    await expect(fixPseudonymSecret(dir, "another-secret-of-enough-length")).rejects.toThrow(
      /another pseudonym secret/,
    );
    await expect(fixPseudonymSecret(fresh(), "short")).rejects.toThrow(/at least 16/);
  });
});
