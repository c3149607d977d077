import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { spawnBuiltServer } from "../support/built-server";
import { emptyNeo4j, graphReady, testNeo4j, testNeo4jDriver } from "../support/neo4j";
import { freePort } from "../support/server";
import { signIn } from "../support/signin";

/**
 * No graph write without its audit entry across two databases (decision 0051): the built hub on Neo4j,
 * its audit log in the relational store, killed (SIGKILL) after Neo4j committed a write and before the
 * entry was appended (the test-only hook HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS holds it there). The write
 * is in Neo4j, its entry is not, its intent is; started again on the same DATA_DIR, the hub appends the
 * entry, and the chain verifies. Runs in the Neo4j pass.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON
type Json = any;

describe.runIf(!!testNeo4j())("a hub killed between the Neo4j commit and the audit entry", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "hub-graph-audit-"));
  const started: ChildProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const s = await spawnBuiltServer({
      port: await freePort(),
      dataDir,
      env: { UPSTREAM_TIMEOUT_MS: "10000", ...env },
      timeoutMs: 180_000,
    });
    started.push(s.child);
    await graphReady(s.url);
    return s;
  };

  afterAll(() => {
    for (const c of started) c.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("appends the entry of the committed write at the next start", async () => {
    await emptyNeo4j();
    const first = await start({ HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS: "120000" });
    const clinic = await signIn(first.url, "clinic");
    const id = `ds-audit-kill-${randomUUID().slice(0, 8)}`;
    const paused = new Promise<void>((resolve) => {
      let out = "";
      first.child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("paused after the Neo4j commit")) resolve();
      });
    });
    const request = clinic
      .api("/api/catalog", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, title: `Committed before the kill ${id}` }),
      })
      .then((r) => r.status)
      .catch(() => "no answer");
    await paused;
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    expect(await request).toBe("no answer");

    // Neo4j holds the write; the relational store holds its intent and no entry
    const driver = testNeo4jDriver();
    try {
      const r = await driver.executeQuery("MATCH (n:GraphNode {id: $id}) RETURN count(n) AS n", { id });
      expect(Number(r.records[0].get("n"))).toBe(1);
    } finally {
      await driver.close();
    }
    const db = new Database(path.join(dataDir, "hub.sqlite"), { readonly: true });
    try {
      const entries = db.prepare("SELECT COUNT(*) AS n FROM audit_entries WHERE target = ?").get(id) as {
        n: number;
      };
      expect(entries.n).toBe(0);
      const intents = db.prepare("SELECT input FROM graph_audit_intents").all() as { input: string }[];
      expect(intents.map((i) => JSON.parse(i.input).target)).toEqual([id]);
    } finally {
      db.close();
    }

    // started again: the entry is appended from the intent, once, and the chain verifies
    const second = await start();
    const admin = await signIn(second.url, "admin");
    const entries = (await (await admin.api(`/api/admin/audit?q=${id}&limit=20`)).json()) as Json[];
    expect(entries.filter((e) => e.target === id)).toMatchObject([{ actor: "clinic", target: id }]);
    const chain = (await (await admin.api("/api/admin/audit?verify=true")).json()) as Json;
    expect(chain.ok).toBe(true);
    const catalogue = (await (await admin.api("/api/catalog")).json()) as Json[];
    expect(catalogue.map((d) => d.id)).toContain(id);
  }, 600_000);
});
