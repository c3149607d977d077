import type { ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyNeo4j, graphReady, testNeo4j } from "../support/neo4j";
import { databaseFor, dropDatabase, testDatabaseUrl } from "../support/postgres";
import { freePort } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { spawnBuiltServer } from "../support/built-server";
import { until } from "../support/until";

/**
 * Two hub instances on one PostgreSQL (DATABASE_URL), each the built server as `npm start` runs it,
 * each with its own DATA_DIR (embedded graph and development dataspace) and port: a session made on
 * A works on B, a write on A is read on B at once, and when A is killed (SIGKILL) in the middle of a
 * write load spread over both, B keeps serving and every write either instance acknowledged is there,
 * with one audit chain that verifies. Runs in the PostgreSQL pass of `npm test`, and in the Neo4j pass
 * (which starts a PostgreSQL for this file) with both instances on one Neo4j as well. Either way the two
 * share one graph (in PostgreSQL, or in Neo4j; decision 0051): a dataset published on A is in B's
 * catalogue and graph at once.
 */

const admin = testDatabaseUrl();
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON
type Json = any;

interface Instance {
  url: string;
  proc: ChildProcess;
  dataDir: string;
}

const SHARED_AUDIT_KEY = randomBytes(32).toString("base64url");

async function startInstance(databaseUrl: string): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "hub-two-"));
  const { url, child } = await spawnBuiltServer({
    port: await freePort(),
    dataDir,
    // instances on one database share the audit chain's key, as the README says (decision 0044)
    env: { DATABASE_URL: databaseUrl, AUDIT_KEY: SHARED_AUDIT_KEY },
    timeoutMs: 90_000,
  });
  return { url, proc: child, dataDir };
}

const send = async (
  s: Signed,
  p: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> => {
  const res = await s.api(p, {
    ...init,
    signal: AbortSignal.timeout(10_000),
    headers: { "content-type": "application/json", ...(init.headers ?? {}) },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

/** the same signed-in user, speaking to another instance with the cookie made on the first */
const on = (s: Signed, base: string): Signed => ({
  ...s,
  api: (p: string, init: RequestInit = {}) =>
    fetch(`${base}${p}`, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers ?? {}), cookie: s.jar.header() },
    }),
});

describe.runIf(!!admin)("two instances on one PostgreSQL", () => {
  let databaseUrl = "";
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    databaseUrl = await databaseFor(admin!, randomUUID());
    if (testNeo4j()) await emptyNeo4j();
    // one after the other: the second finds the migrations done (both at once is covered by the store tests)
    a = await startInstance(databaseUrl);
    b = await startInstance(databaseUrl);
    // both graphs answer before any test reads the catalogue (Neo4j starts and seeds in the background)
    for (const base of [a.url, b.url]) await graphReady(base, 120_000);
  }, 360_000);

  afterAll(async () => {
    for (const i of [a, b]) {
      i?.proc.kill("SIGKILL");
      if (i) rmSync(i.dataDir, { recursive: true, force: true });
    }
    if (databaseUrl) await dropDatabase(admin!, databaseUrl).catch(() => {});
  });

  it("uses a session made on A on B, and logging out on B ends it on A", async () => {
    const onA = await signIn(a.url, "researcher");
    const meA = await send(onA, "/api/auth/session");
    expect(meA.body.user).toMatchObject({ username: "researcher" });
    const onB = on(onA, b.url);
    const meB = await send(onB, "/api/auth/session");
    expect(meB.body.user).toEqual(meA.body.user);
    expect((await send(onB, "/api/catalog")).status).toBe(200);
    const other = await signIn(b.url, "regulator");
    expect((await send(on(other, a.url), "/api/catalog")).status).toBe(200);
    const out = await other.api("/auth/logout", { method: "POST" });
    expect(out.status).toBe(302);
    expect((await send(other, "/api/catalog")).status).toBe(401);
    expect((await send(on(other, a.url), "/api/catalog")).status).toBe(401);
  });

  it("reads on B at once what was written on A", async () => {
    const researcher = await signIn(a.url, "researcher");
    // B's kept lists (server/http/kept) made before the write must not be answered after it
    expect((await send(on(researcher, b.url), "/api/compliance/applications")).status).toBe(200);
    expect((await send(on(researcher, b.url), "/api/permits")).status).toBe(200);
    const created = await send(researcher, "/api/compliance/applications", {
      method: "POST",
      body: JSON.stringify({
        title: `Two instances ${randomUUID().slice(0, 8)}`,
        summary: "Written on instance A, read on instance B straight after.",
        purpose: "scientificResearch",
        datasets: ["dataset-lmc-omop"],
      }),
    });
    expect(created.status).toBe(201);
    const read = await send(on(researcher, b.url), `/api/compliance/applications?id=${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    expect(read.body.title).toBe(created.body.title);
    const listed = await send(on(researcher, b.url), "/api/compliance/applications");
    expect(listed.body.map((x: Json) => x.id)).toContain(created.body.id);
    const register = await send(on(researcher, b.url), "/api/permits");
    expect(register.body.applications.map((x: Json) => x.id)).toContain(created.body.id);

    const adminA = await signIn(a.url, "admin");
    const set = await send(adminA, "/api/admin/audit/retention", {
      method: "POST",
      body: JSON.stringify({ kind: "two-instances", days: 2000 }),
    });
    expect(set.status).toBe(200);
    const seen = await send(on(adminA, b.url), "/api/admin/audit/retention?kind=two-instances");
    expect(seen.body).toMatchObject({ kind: "two-instances", days: 2000, setBy: "admin" });
    const entries = await send(on(adminA, b.url), "/api/admin/audit?kind=audit&limit=5");
    expect(entries.body.map((e: Json) => e.target)).toContain("two-instances");

    // the policy list and the participant directory, kept per version on B, show A's writes at once
    const policiesOnB = "/api/admin/policies?participantId=lmc";
    expect((await send(on(adminA, b.url), policiesOnB)).status).toBe(200);
    expect((await send(on(adminA, b.url), "/api/admin/participants")).status).toBe(200);
    const policyId = `two-instances-${randomUUID().slice(0, 8)}`;
    const pushed = await send(adminA, "/api/admin/policies", {
      method: "POST",
      body: JSON.stringify({
        participantId: "lmc",
        policy: {
          "@id": policyId,
          policy: { "@type": "Set", permission: [{ action: "use" }] },
        },
      }),
    });
    expect(pushed.status).toBe(201);
    // B's own embedded connector does not hold it: B lists the hub's row as missing there
    const policies = await send(on(adminA, b.url), policiesOnB);
    expect(policies.body.find((p: Json) => p["@id"] === policyId)).toMatchObject({
      connector: { state: "missing-at-connector" },
    });
    const did = `did:web:${policyId}.example`;
    const added = await send(adminA, "/api/admin/participants", {
      method: "POST",
      body: JSON.stringify({ did, displayName: `Two instances ${policyId}` }),
    });
    expect(added.status).toBe(201);
    const directory = await send(on(adminA, b.url), "/api/admin/participants");
    expect(directory.body.map((e: Json) => e.did)).toContain(did);
  });

  it(`publishes a dataset on A that B's catalogue and graph show at once (one graph: ${testNeo4j() ? "Neo4j" : "PostgreSQL"})`, async () => {
    const clinic = await signIn(a.url, "clinic");
    const onB = on(clinic, b.url);
    // B keeps its list before the write
    expect((await send(onB, "/api/catalog")).status).toBe(200);
    const before = await send(onB, "/api/graph?layer=l2&limit=5000");
    expect(before.status).toBe(200);
    const id = `ds-two-${randomUUID().slice(0, 8)}`;
    const created = await send(clinic, "/api/catalog", {
      method: "POST",
      body: JSON.stringify({ id, title: `Two instances ${id}` }),
    });
    expect(created.status).toBe(201);
    // B drops its kept answers when the change notice arrives (LISTEN/NOTIFY, decision 0051): on a
    // loaded machine that can be after A's 201, so B is read until it lists the dataset (bounded)
    const listed = await until(
      () => send(onB, "/api/catalog"),
      (r) => r.status === 200 && r.body.some((d: Json) => d.id === id),
      10_000,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.map((d: Json) => d.id)).toContain(id);
    // the node itself, and B's graph kept per version before the write
    const node = await send(onB, `/api/graph/node?id=${id}`);
    expect(node.status).toBe(200);
    expect(node.body).toMatchObject({ id, label: "HealthDataset" });
    const after = await send(onB, "/api/graph?layer=l2&limit=5000");
    expect(after.body.meta.totalNodes).toBe(before.body.meta.totalNodes + 1);
    // and it is not gone with A: B reads it from the shared graph, and so does a new A on a new DATA_DIR
    const old = a;
    old.proc.kill("SIGKILL");
    if (old.proc.exitCode === null) await new Promise((r) => old.proc.once("exit", r));
    rmSync(old.dataDir, { recursive: true, force: true });
    expect((await send(onB, `/api/graph/node?id=${id}`)).status).toBe(200);
    a = await startInstance(databaseUrl);
    await graphReady(a.url);
    expect((await send(on(clinic, a.url), `/api/graph/node?id=${id}`)).status).toBe(200);
  }, 180_000);

  it("keeps serving on B when A is killed mid-load, and loses nothing acknowledged", async () => {
    const adminA = await signIn(a.url, "admin");
    const researcherA = await signIn(a.url, "researcher");
    const targets = [
      { admin: adminA, researcher: researcherA },
      { admin: on(adminA, b.url), researcher: on(researcherA, b.url) },
    ];
    const acked: { kind: string; app?: string; via: number }[] = [];
    let failedOnA = 0;
    let failedOnB = 0;
    const failuresOnB: string[] = [];
    let killed = false;
    let n = 0;
    const worker = async (w: number) => {
      for (let i = 0; i < 40; i++) {
        const via = (w + i) % 2;
        const who = targets[via];
        const k = n++;
        try {
          if (k % 2 === 0) {
            const kind = `kill-${w}-${i}-${k}`;
            const r = await send(who.admin, "/api/admin/audit/retention", {
              method: "POST",
              body: JSON.stringify({ kind, days: 1200 }),
            });
            if (r.status === 200) acked.push({ kind, via });
            else if (via === 1) {
              failedOnB++;
              failuresOnB.push(`retention ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
            }
          } else {
            const r = await send(who.researcher, "/api/compliance/applications", {
              method: "POST",
              body: JSON.stringify({
                title: `Kill load ${w}-${i}`,
                summary: "Acknowledged writes must survive the loss of an instance.",
                purpose: "scientificResearch",
                datasets: ["dataset-lmc-omop"],
              }),
            });
            if (r.status === 201) acked.push({ kind: "application", app: r.body.id, via });
            else if (via === 1) {
              failedOnB++;
              failuresOnB.push(`application ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
            }
          }
        } catch (e) {
          if (via === 0) failedOnA++;
          else {
            failedOnB++;
            failuresOnB.push(`threw ${String(e)}`);
          }
        }
        if (!killed && n >= 60) {
          killed = true;
          a.proc.kill("SIGKILL");
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    console.log(
      `two instances: ${acked.length} writes acknowledged (${acked.filter((x) => x.via === 0).length} by A, ` +
        `${acked.filter((x) => x.via === 1).length} by B), ${failedOnA} refused by A after its kill, ${failedOnB} failed on B`,
    );
    expect(killed).toBe(true);
    // B never failed; A's requests after the kill did
    expect(failuresOnB).toEqual([]);
    expect(failedOnB).toBe(0);
    expect(failedOnA).toBeGreaterThan(0);
    const adminB = targets[1].admin;
    const researcherB = targets[1].researcher;
    const rows = await send(adminB, "/api/admin/audit/retention");
    const kinds = new Set(rows.body.kinds.map((r: Json) => r.kind));
    for (const w of acked.filter((x) => x.kind !== "application"))
      expect(kinds.has(w.kind), w.kind).toBe(true);
    for (const w of acked.filter((x) => x.app)) {
      const r = await send(researcherB, `/api/compliance/applications?id=${w.app}`);
      expect(r.status, w.app).toBe(200);
    }
    expect(acked.filter((x) => x.via === 0).length).toBeGreaterThan(0);
    expect(acked.filter((x) => x.via === 1).length).toBeGreaterThan(0);
    const chain = await send(adminB, "/api/admin/audit?verify=true");
    expect(chain.body.ok).toBe(true);
  }, 180_000);
});
