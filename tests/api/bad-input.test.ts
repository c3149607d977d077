import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../server/http/route-table";
import { generateCases, PERSONAS_UNDER_TEST, type BadCase } from "../support/bad-input-cases";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { watchStore, type StoreWatch, VOLATILE } from "../support/store-watch";

/**
 * Bad input, generated over the route table (tests/support/bad-input-cases.ts): every route, every
 * method, every persona and anonymous callers; broken bodies, odd ids and odd queries. Every answer
 * is JSON (an `error` string when refused), never a 5xx; where a case determines the status (401,
 * 403, 400, 413, 415) it is exactly that; a refused call changes no row of the store (TEMP triggers
 * on the server's own SQLite connection, tests/support/store-watch.ts) and the audit chain still
 * verifies; /api/health answers throughout.
 *
 * Set RELIABILITY_OUT=<file> to write the figures (requests, answers by status, slowest) as JSON.
 */

let server: TestServer;
let watch: StoreWatch;
const sessions = new Map<string, Signed>();

beforeAll(async () => {
  server = await startTestServer();
  for (const p of PERSONAS_UNDER_TEST) sessions.set(p, await signIn(server.url, p));
  watch = watchStore(server.services.db, VOLATILE);
});
afterAll(async () => {
  watch?.stop();
  await server?.close();
});

interface Answer {
  c: BadCase;
  status: number;
  ms: number;
  type: string;
  body: unknown;
  changed: string[];
}

const lastAuditSeq = () =>
  (server.services.db.prepare("SELECT coalesce(max(seq), 0) AS n FROM audit_entries").get() as { n: number })
    .n;
// a refusal is itself on record (issue 34: "refused (401)", a refused look at a record): not a change
const auditSuccessesSince = (seq: number) =>
  (
    server.services.db
      .prepare(
        "SELECT action FROM audit_entries WHERE seq > ? AND outcome <> 'failure' AND outcome NOT LIKE 'refused%'",
      )
      .all(seq) as { action: string }[]
  ).map((r) => `audit ${r.action}`);

async function send(c: BadCase): Promise<Answer> {
  const cookie = c.persona ? sessions.get(c.persona)!.cookie : undefined;
  // the read logs write in batches (decision 0034): what earlier calls logged is written before the mark,
  // and what this call logged before its changes are read
  await server.services.flushReadLogs();
  const mark = watch.mark();
  const seq = lastAuditSeq();
  const t0 = performance.now();
  const res = await fetch(`${server.url}${c.path}`, {
    method: c.method,
    redirect: "manual",
    headers: { ...(c.headers ?? {}), ...(cookie ? { cookie } : {}) },
    body: c.body as BodyInit | undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // kept as text: the assertions say what was expected
  }
  await server.services.flushReadLogs();
  return {
    c,
    status: res.status,
    ms,
    type: res.headers.get("content-type") ?? "",
    body,
    changed: [...watch.changedSince(mark), ...auditSuccessesSince(seq)],
  };
}

const describeCase = (a: Answer) =>
  `${a.c.persona ?? "anonymous"} ${a.c.method} ${a.c.path.slice(0, 120)} [${a.c.kind}] → ${a.status} ${JSON.stringify(a.body)?.slice(0, 200)}`;

describe("generated bad input over the route table", () => {
  const cases = generateCases(ROUTES);
  const answers: Answer[] = [];
  let healthChecks = 0;
  const healthFailures: string[] = [];

  it("sends every case: no 5xx, JSON errors, the determined statuses, no change on refusal", async () => {
    expect(cases.length).toBeGreaterThan(1500);
    let stop = false;
    // /api/health throughout, on its own connection
    const prober = (async () => {
      while (!stop) {
        try {
          const r = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(3000) });
          if (r.status !== 200) healthFailures.push(`status ${r.status}`);
          await r.arrayBuffer();
        } catch (e) {
          healthFailures.push(String(e));
        }
        healthChecks++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const auditBefore = await server.services.audit.count();
    for (const c of cases) answers.push(await send(c));
    stop = true;
    await prober;

    const problems: string[] = [];
    for (const a of answers) {
      if (a.status >= 500) problems.push(`5xx: ${describeCase(a)}`);
      if (a.c.expect !== undefined && a.status !== a.c.expect)
        problems.push(`expected ${a.c.expect}: ${describeCase(a)}`);
      if (a.status >= 400) {
        if (!/^application\/json/.test(a.type)) problems.push(`not JSON: ${describeCase(a)}`);
        else if (typeof (a.body as { error?: unknown })?.error !== "string")
          problems.push(`no error text: ${describeCase(a)}`);
        if (a.changed.length) problems.push(`refused but changed ${a.changed.join(",")}: ${describeCase(a)}`);
      }
    }
    const refusedWrites = answers.filter((a) => a.status >= 400 && a.c.method !== "GET").length;
    const byStatus: Record<string, number> = {};
    for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    const slowest = [...answers].sort((x, y) => y.ms - x.ms).slice(0, 5);
    const figures = {
      requests: answers.length,
      byStatus,
      fiveXX: answers.filter((a) => a.status >= 500).length,
      refusedWrites,
      slowest: slowest.map((a) => ({ ms: Math.round(a.ms), case: describeCase(a).slice(0, 160) })),
      healthChecks,
      healthFailures: healthFailures.length,
      auditEntriesAdded: (await server.services.audit.count()) - auditBefore,
    };
    console.log("[bad-input] figures", JSON.stringify(figures, null, 1));
    if (process.env.RELIABILITY_OUT)
      writeFileSync(process.env.RELIABILITY_OUT, JSON.stringify(figures, null, 2));

    // grouped by route and problem, so one cause shows once
    const groups = new Map<string, number>();
    for (const p of problems) {
      const key = p.replace(/\?[^ ]*/, "").replace(/ \[[^\]]*\].*$/, "");
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    expect([...groups].map(([k, n]) => `${n} × ${k}`)).toEqual([]);
    expect(healthFailures).toEqual([]);
    expect(healthChecks).toBeGreaterThan(10);
    expect((await server.services.audit.verify()).ok).toBe(true);
  }, 240_000);
});
