import Database from "better-sqlite3";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { AUDIT_UNAVAILABLE } from "../../server/audit/access-log";
import { spawnBuiltServer } from "../support/built-server";
import { freePort } from "../support/server";
import { signIn } from "../support/signin";

/**
 * The security test's F2 on the built server (as `npm start` runs it: the audit batches on their own
 * thread, decision 0034), on the embedded store whose file the test reads: a look answered 200 is in
 * the file when the server is killed (SIGKILL) right after the answer, round after round; with the
 * file's write lock held by another connection past the bounded wait, the look is refused (503) and
 * none of the record sent.
 */

const dataDir = mkdtempSync(path.join(tmpdir(), "hub-look-kill-"));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const file = path.join(dataDir, "hub.sqlite");
const entriesOf = (target: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT action, actor FROM audit_entries WHERE target = ?").all(target);
  } finally {
    db.close();
  }
};

it("keeps the entry of every look answered 200 across a kill right after the answer, and refuses a look it cannot record", async () => {
  const port = await freePort();
  const start = async () =>
    (child = (await spawnBuiltServer({ port, dataDir, env: { DATABASE_URL: "" } })).child);
  await start();
  const url = `http://127.0.0.1:${port}`;
  const clinic = await signIn(url, "clinic");
  const held = ((await (await clinic.api("/api/patient?limit=20")).json()) as { id: string }[])
    .map((p) => p.id)
    .filter((id) => id !== "patient-000001");

  for (const id of held.slice(0, 3)) {
    const res = await clinic.api(`/api/patient/profile?patientId=${id}`);
    expect(res.status).toBe(200);
    child!.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    expect(entriesOf(id), `the look at ${id}`).toEqual([{ action: "patient.profile.read", actor: "clinic" }]);
    await start();
  }

  // another connection holds the write lock past the bound (the thread's busy wait and the look's)
  const other = new Database(file);
  other.exec("BEGIN IMMEDIATE");
  const refused = await clinic.api(`/api/patient/profile?patientId=${held[3]}`).finally(() => {
    other.exec("ROLLBACK");
    other.close();
  });
  expect(refused.status).toBe(503);
  const body = await refused.text();
  expect(JSON.parse(body)).toEqual({ error: AUDIT_UNAVAILABLE });
  const answered = await clinic.api(`/api/patient/profile?patientId=${held[3]}`);
  expect(answered.status).toBe(200);
  const { patient } = (await answered.json()) as { patient: { name: string; birthDate: string } };
  expect(body).not.toContain(patient.name);
  expect(body).not.toContain(patient.birthDate);
  child!.kill("SIGTERM");
  await new Promise((r) => child!.once("exit", r));
  child = undefined;
}, 300_000);
