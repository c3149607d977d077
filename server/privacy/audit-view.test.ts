import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log";
import { openDatabase } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { createAuditView } from "./audit-view";
import { createPseudonymiser, createRedactor, type PatientDirectory } from "./redact";

const dir = mkdtempSync(path.join(tmpdir(), "hub-audit-view-"));
const db = openDatabase(dir, "audit.sqlite");
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
const audit = await createAuditLog(openSqliteRelational(db), db);
const psn = createPseudonymiser("a-test-secret-of-enough-length");
const directory: PatientDirectory = {
  holderOf: (n) => (n === 1 ? "alphaklinik-berlin" : "lmc"),
  numberOf: (p) => [1, 2].find((n) => psn.of(n) === p),
};
const view = createAuditView({ audit, redactor: async (v) => createRedactor(v, psn, directory) });
const admin = { roles: ["CONNECTOR_ADMIN" as const], username: "admin" };
const regulator = { roles: ["HDAB_AUTHORITY" as const], username: "regulator" };

// 1,200 entries: the patient's consent grant is the oldest, so a filtered search pages through the rest
await audit.append({
  action: "consent.grant",
  actor: "patient1",
  target: "patient-000001/approval-x",
  kind: "consent",
});
for (let i = 0; i < 1200; i++)
  await audit.append({ action: "catalogue.create", actor: "clinic", target: `ds-${i}`, kind: "catalogue" });

describe("the audit log as a reader may see it", () => {
  it("gives the operator the stored entries", async () => {
    const [grant] = await view.list({ action: "consent.grant" }, admin);
    expect(grant).toMatchObject({ actor: "patient1", target: "patient-000001/approval-x" });
    expect(grant.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("pseudonymises the record and the patient actor for the access body, and withholds the hashes", async () => {
    const [grant] = await view.list({ action: "consent.grant" }, regulator);
    const pseudonym = `patient-x${psn.of(1)}`;
    expect(grant).toMatchObject({
      actor: pseudonym,
      target: `${pseudonym}/approval-x`,
      hash: "",
      prevHash: "",
    });
    const page = await view.list({ limit: 5 }, regulator);
    expect(page).toHaveLength(5);
    expect(page.every((e) => e.hash === "" && e.actor === "clinic")).toBe(true);
  });

  it("matches its text filters against what the reader sees, across pages of the log", async () => {
    expect(await view.list({ q: "patient-000001" }, regulator)).toEqual([]);
    expect(await view.list({ actor: "patient1" }, regulator)).toEqual([]);
    const found = await view.list({ q: psn.of(1), limit: 10 }, regulator);
    expect(found.map((e) => e.action)).toEqual(["consent.grant"]);
    // the operator's search runs in the store as before
    expect((await view.list({ q: "patient-000001" }, admin)).map((e) => e.action)).toEqual(["consent.grant"]);
  });
});
