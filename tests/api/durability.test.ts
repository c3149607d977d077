import Database from "better-sqlite3";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort } from "../support/server";
import { signIn } from "../support/signin";
import { spawnBuiltServer } from "../support/built-server";

/**
 * A crash loses no acknowledged write: the server (started as `npm start` starts it) acknowledges
 * a write with 201, is killed with SIGKILL at once, and after a restart on the same DATA_DIR the
 * write and its audit entry are there.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), "hub-crash-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(port: number): Promise<ChildProcess> {
  // these tests read the SQLite file itself: the embedded store even when DATABASE_URL is set around them
  return (await spawnBuiltServer({ port, dataDir, env: { DATABASE_URL: "" } })).child;
}

it("keeps acknowledged writes across SIGKILL", async () => {
  const port = await freePort(); // restarted on the same port after the kill
  const url = `http://127.0.0.1:${port}`;
  let child = await start(port);
  const clinic = await signIn(url, "clinic");
  const ids = Array.from({ length: 20 }, (_, i) => `ds-crash-${i}`);
  const acknowledged = await Promise.all(
    ids.map(async (id) => {
      const res = await clinic.api("/api/catalog", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, title: `Crash test ${id}` }),
      });
      return res.status === 201 ? id : null;
    }),
  );
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));

  child = await start(port);
  try {
    const again = await signIn(url, "clinic");
    const list = (await (await again.api("/api/catalog")).json()) as { id: string }[];
    const ok = acknowledged.filter((x): x is string => x !== null);
    expect(ok.length).toBe(20);
    for (const id of ok) expect(list.some((d) => d.id === id)).toBe(true);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
  const db = new Database(path.join(dataDir, "hub.sqlite"), { readonly: true });
  try {
    const rows = db.prepare("SELECT target FROM audit_entries WHERE action = 'catalogue.create'").all() as {
      target: string;
    }[];
    expect(rows.map((r) => r.target).sort()).toEqual([...ids].sort());
  } finally {
    db.close();
  }
}, 60_000);
