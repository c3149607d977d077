/**
 * The two-instance row of `npm run bench`: a throw-away PostgreSQL (scripts/postgres.mjs), two hub
 * instances on it (the built server, each with its own DATA_DIR and port) and a round-robin HTTP proxy
 * in front (keep-alive to both), driven like every other route. For comparison the same routes through
 * the same proxy with one instance behind it: the difference is what the second instance adds on this
 * machine (on 2 cores the load generator, the proxy, PostgreSQL and both instances share the CPU).
 * Writes its section into the bench document between markers, so the rest of the document is kept.
 *
 *   npm run bench -- --two-instances-only          # just this section
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { databaseFor } from "../../tests/support/postgres";
import { freePort } from "../../tests/support/server";
import { signIn } from "../../tests/support/signin";
import { drive, type Measured } from "./load";
import { stopChild } from "./server";
import { keepSection, putSection, type DocSection } from "./doc-section";
// @ts-expect-error -- a plain ES module without types (scripts/postgres.mjs)
import { startPostgres } from "../postgres.mjs";
import { spawnBuiltServer } from "../../tests/support/built-server";

export const TWO_INSTANCE_ROUTES: { name: string; path: string; persona: string }[] = [
  { name: "catalogue", path: "/api/catalog", persona: "lmc" },
  { name: "graph all/1000", path: "/api/graph?layer=all&limit=1000", persona: "admin" },
  { name: "access-body applications", path: "/api/compliance/applications", persona: "regulator" },
  { name: "audit (first page)", path: "/api/admin/audit?limit=50", persona: "admin" },
  { name: "health", path: "/api/health", persona: "admin" },
];

const MARKS: DocSection = { start: "<!-- two-instances:start -->", end: "<!-- two-instances:end -->" };

interface Instance {
  url: string;
  child: ChildProcess;
  dataDir: string;
}

async function startInstance(databaseUrl: string, patients: number): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hub-bench2-"));
  const { url, child } = await spawnBuiltServer({
    port: await freePort(),
    dataDir,
    patients,
    env: { DATABASE_URL: databaseUrl },
    stderr: "inherit",
  });
  return { url, child, dataDir };
}

/** a round-robin reverse proxy over `upstreams`, keep-alive to each */
async function roundRobin(upstreams: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(upstreams[next++ % upstreams.length]);
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end('{"error":"upstream failed"}');
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** the two-instance section of the document at `file`, carried over into a rewritten `doc` */
export function keepTwoInstanceSection(file: string, doc: string): string {
  return keepSection(file, doc, MARKS);
}

const f0 = (n: number) => Math.round(n).toLocaleString("en-GB");
const f1 = (n: number) => n.toFixed(1);

export async function benchTwoInstances(opt: {
  seconds: number;
  concurrency: number;
  patients: number;
  out: string;
}) {
  console.log(
    `\n== two instances on PostgreSQL (${f0(opt.patients)} patients in their one graph): starting…`,
  );
  const pg = await startPostgres({ log: (m: string) => console.log(`   ${m}`) });
  const instances: Instance[] = [];
  const rows: { name: string; path: string; one: Measured; two: Measured }[] = [];
  const started = Date.now();
  try {
    const databaseUrl = await databaseFor(pg.url, randomUUID());
    instances.push(await startInstance(databaseUrl, opt.patients));
    instances.push(await startInstance(databaseUrl, opt.patients));
    const cookies = new Map<string, string>();
    for (const r of TWO_INSTANCE_ROUTES)
      if (!cookies.has(r.persona)) cookies.set(r.persona, (await signIn(instances[0].url, r.persona)).cookie);
    const one = await roundRobin([instances[0].url]);
    const two = await roundRobin(instances.map((i) => i.url));
    try {
      for (const r of TWO_INSTANCE_ROUTES) {
        const headers = { cookie: cookies.get(r.persona)!, accept: "application/json" };
        const m1 = await drive(one.url + r.path, headers, opt.seconds, opt.concurrency);
        const m2 = await drive(two.url + r.path, headers, opt.seconds, opt.concurrency);
        console.log(
          `   ${r.name.padEnd(26)} one ${f0(m1.rps)} req/s p99 ${f1(m1.p99)} ms · two ${f0(m2.rps)} req/s p99 ${f1(m2.p99)} ms · errors ${m1.errors}/${m2.errors}`,
        );
        rows.push({ name: r.name, path: r.path, one: m1, two: m2 });
      }
    } finally {
      await one.close();
      await two.close();
    }
  } finally {
    // the instances end (and close their pools) before PostgreSQL stops under them
    await Promise.all(instances.map((i) => stopChild(i.child)));
    for (const i of instances) rmSync(i.dataDir, { recursive: true, force: true });
    await pg.stop();
  }
  const section = [
    MARKS.start,
    "## Two instances on PostgreSQL",
    "",
    `Run: ${new Date(started).toISOString()} · ${os.cpus().length} cores · ${opt.seconds} s per route and setup, ${opt.concurrency} connections · ` +
      `a throw-away PostgreSQL (scripts/postgres.mjs), two built servers with \`DATABASE_URL\` set (${f0(opt.patients)} patients in the graph they share in PostgreSQL, seeded by the first), ` +
      "and a round-robin keep-alive proxy in front (scripts/bench/two-instances.ts). *One* is the same proxy with one instance behind it. " +
      "On this machine the load generator, the proxy, PostgreSQL and both instances share the same cores, so the second instance shows what it costs or adds here, not what it adds on its own machine.",
    "",
    "| route | path | one: req/s | one: p99 ms | two: req/s | two: p50 ms | two: p99 ms | two: errors |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.name} | \`${r.path}\` | ${f0(r.one.rps)} | ${f1(r.one.p99)} | ${f0(r.two.rps)} | ${f1(r.two.p50)} | ${f1(r.two.p99)} | ${r.two.errors} |`,
    ),
    MARKS.end,
  ].join("\n");
  const doc = existsSync(opt.out) ? readFileSync(opt.out, "utf8") : "# Benchmarks\n";
  const updated = putSection(doc, MARKS, section);
  const { format, resolveConfig } = await import("prettier");
  writeFileSync(opt.out, await format(updated, { ...(await resolveConfig(opt.out)), filepath: opt.out }));
  return rows;
}
