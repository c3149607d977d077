import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../storage/database";
import { getOrCreateSecret } from "../storage/secrets";
import { fixPseudonymSecret, PSEUDONYM_SECRET } from "./secret";

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
  it("sets the secret the server then reads, and refuses to change one already there", () => {
    const dir = fresh();
    fixPseudonymSecret(dir, "a-fixed-secret-for-recording");
    fixPseudonymSecret(dir, "a-fixed-secret-for-recording");
    const db = openDatabase(dir);
    try {
      expect(getOrCreateSecret(db, PSEUDONYM_SECRET)).toBe("a-fixed-secret-for-recording");
      expect(getOrCreateSecret(db, PSEUDONYM_SECRET)).toBe(getOrCreateSecret(db, "pseudonym-secret"));
    } finally {
      db.close();
    }
    expect(() => fixPseudonymSecret(dir, "another-secret-of-enough-length")).toThrow(
      /another pseudonym secret/,
    );
    expect(() => fixPseudonymSecret(fresh(), "short")).toThrow(/at least 16/);
  });
});
