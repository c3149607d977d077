/**
 * `npm run bench`: throughput and latency of the API at 50 concurrent connections, on 200 and 10,000
 * synthetic patients. Starts the built server as a child process (its own DATA_DIR), signs in through
 * the real provider, drives each route for a fixed time from this process, and writes docs/benchmarks.md.
 *
 *   npm run bench                       # both sizes, 5 s per route
 *   npm run bench -- --sizes 200 --seconds 3 --only graph
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../tests/support/server";
import { signIn } from "../tests/support/signin";

interface BenchRoute {
  name: string;
  path: string;
  persona: string;
  /** checks one response body; returns a problem or null */
  check?: (body: unknown) => string | null;
}

const graphLimit = (limit: number) => (body: unknown) => {
  const g = body as { nodes: unknown[]; meta: { returnedNodes: number } };
  return g.nodes.length > limit ? `returned ${g.nodes.length} nodes over the limit ${limit}` : null;
};

export const ROUTES: BenchRoute[] = [
  { name: "health", path: "/api/health", persona: "admin" },
  { name: "catalogue list", path: "/api/catalog", persona: "researcher" },
  {
    name: "graph all, limit 1000",
    path: "/api/graph?layer=all&limit=1000",
    persona: "admin",
    check: graphLimit(1000),
  },
  {
    name: "graph l3, limit 1000",
    path: "/api/graph?layer=l3&limit=1000",
    persona: "admin",
    check: graphLimit(1000),
  },
  {
    name: "graph persona researcher",
    path: "/api/graph?persona=researcher",
    persona: "researcher",
    check: graphLimit(1000),
  },
  { name: "graph expand depth 2", path: "/api/graph/expand?id=patient-000001&depth=2", persona: "admin" },
  { name: "graph node", path: "/api/graph/node?id=patient-000001", persona: "admin" },
  { name: "graph validate", path: "/api/graph/validate", persona: "regulator" },
  { name: "patient list (holder)", path: "/api/patient", persona: "clinic" },
  { name: "patient profile", path: "/api/patient/profile?patientId=patient-000001", persona: "patient1" },
  { name: "patient insights", path: "/api/patient/insights?patientId=patient-000001", persona: "patient1" },
  { name: "patient research", path: "/api/patient/research?patientId=patient-000001", persona: "patient1" },
  { name: "negotiations list", path: "/api/negotiations?participantId=pharmaco", persona: "researcher" },
  { name: "transfers list", path: "/api/transfers?participantId=pharmaco", persona: "researcher" },
  { name: "assets (grouped)", path: "/api/assets", persona: "admin" },
  { name: "participants", path: "/api/participants", persona: "admin" },
  { name: "tasks", path: "/api/tasks", persona: "admin" },
  { name: "analytics", path: "/api/analytics", persona: "researcher" },
  { name: "federated", path: "/api/federated", persona: "researcher" },
];

function args() {
  const a = process.argv.slice(2);
  const get = (k: string) => {
    const i = a.indexOf(`--${k}`);
    return i >= 0 ? a[i + 1] : undefined;
  };
  return {
    sizes: (get("sizes") ?? "200,10000").split(",").map(Number),
    seconds: Number(get("seconds") ?? 5),
    concurrency: Number(get("concurrency") ?? 50),
    only: get("only"),
    out: get("out") ?? "docs/benchmarks.md",
  };
}

async function startServer(
  patients: number,
): Promise<{ url: string; child: ChildProcess; dataDir: string; seedMs: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hub-bench-"));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  const child = spawn(
    process.execPath,
    [path.join(process.env.HUB_BUILD_DIR ?? "build", "server", "index.js")],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_URL: url,
        DATA_DIR: dataDir,
        SEED_PATIENTS: String(patients),
        NODE_ENV: "test",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("listening on")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { url, child, dataDir, seedMs: Date.now() - t0 };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Drives one route with `concurrency` keep-alive connections (node:http: cheaper per response than fetch). */
async function load(url: string, cookie: string, route: BenchRoute, seconds: number, concurrency: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url + route.path);
  const get = () =>
    new Promise<{ status: number; body: Buffer | null; bytes: number }>((resolve, reject) => {
      const keep = route.check !== undefined && Math.random() < 0.01;
      const req = http.get(target, { agent, headers: { cookie, "accept-encoding": "gzip" } }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
        });
        res.on("end", () => {
          const raw = Buffer.concat(chunks);
          const body = keep ? (res.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw) : null;
          resolve({ status: res.statusCode ?? 0, body, bytes });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
    });

  const latencies: number[] = [];
  const problems = new Set<string>();
  let errors = 0;
  let bytes = 0;
  // warm-up: one request (fills caches the way a first user would) and a check of the body
  const first = await fetch(url + route.path, { headers: { cookie } });
  const firstBody = await first.json();
  if (!first.ok) problems.add(`warm-up answered ${first.status}: ${JSON.stringify(firstBody).slice(0, 120)}`);
  const problem = route.check?.(firstBody);
  if (problem) problems.add(problem);

  const deadline = performance.now() + seconds * 1000;
  async function worker() {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const r = await get();
        bytes += r.bytes;
        if (r.status < 200 || r.status >= 300) errors++;
        else if (r.body && route.check) {
          const p = route.check(JSON.parse(r.body.toString("utf8")));
          if (p) problems.add(p);
        }
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: pct(latencies, 50),
    p95: pct(latencies, 95),
    p99: pct(latencies, 99),
    errors,
    kbPerResponse: bytes / Math.max(1, latencies.length) / 1024,
    problems: [...problems],
  };
}

async function main() {
  const opt = args();
  const routes = ROUTES.filter((r) => !opt.only || r.name.includes(opt.only) || r.path.includes(opt.only));
  const sections: string[] = [];
  const targets: string[] = [];
  for (const size of opt.sizes) {
    console.log(`\n== ${size} patients: starting server and seeding…`);
    const srv = await startServer(size);
    console.log(`   ready in ${(srv.seedMs / 1000).toFixed(1)} s`);
    const cookies = new Map<string, string>();
    const rows: string[] = [];
    try {
      for (const r of routes) {
        if (!cookies.has(r.persona)) cookies.set(r.persona, (await signIn(srv.url, r.persona)).cookie);
        const m = await load(srv.url, cookies.get(r.persona)!, r, opt.seconds, opt.concurrency);
        const line = `| ${r.name} | \`${r.path}\` | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.errors} | ${m.kbPerResponse.toFixed(1)} | ${m.problems.join("; ") || "—"} |`;
        console.log(
          `   ${r.name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${m.errors}${m.problems.length ? `, ${m.problems.join("; ")}` : ""}`,
        );
        rows.push(line);
        // issue 2's target: the graph at 10,000 patients answers under 100 ms at p95, no errors, never over the limit
        if (r.name === "graph all, limit 1000" && size >= 10_000) {
          const met = m.p95 < 100 && m.errors === 0 && m.problems.length === 0;
          targets.push(
            `- \`GET /api/graph?layer=all&limit=1000\` on ${size.toLocaleString("en")} patients, 50 connections: p95 ${m.p95.toFixed(1)} ms (target < 100 ms), ${m.errors} errors, ${m.problems.length ? m.problems.join("; ") : "no response over the limit"} — **${met ? "met" : "NOT met"}**`,
          );
        }
      }
      const rss = rssMiB(srv.child.pid!);
      sections.push(
        [
          `### ${size.toLocaleString("en")} patients`,
          "",
          `Server ready (seeded from empty) in ${(srv.seedMs / 1000).toFixed(1)} s; resident memory after the run ${rss} MiB.`,
          "",
          "| route | path | req/s | p50 ms | p95 ms | p99 ms | errors | KiB/resp | notes |",
          "|---|---|---:|---:|---:|---:|---:|---:|---|",
          ...rows,
          "",
        ].join("\n"),
      );
    } finally {
      srv.child.kill("SIGTERM");
      await new Promise((r) => srv.child.once("exit", r));
      rmSync(srv.dataDir, { recursive: true, force: true });
    }
  }
  const doc = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (scripts/bench.ts). Each route is driven for a fixed time by 50 concurrent",
    "keep-alive connections from a second process on the same machine, after one warm-up request;",
    "latencies are per request, client-side. Errors count non-2xx answers and failed connections.",
    "",
    ...(targets.length ? ["## Targets", "", ...targets, ""] : []),
    `Run: ${new Date().toISOString()} · ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}) · ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · Node ${process.version} · ${opt.seconds} s per route, concurrency ${opt.concurrency}.`,
    "",
    ...sections,
  ].join("\n");
  writeFileSync(opt.out, doc);
  console.log(`\nwrote ${opt.out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
