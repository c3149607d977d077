/**
 * `npm run soak` (not in CI): the built server under 50 connections for 10 minutes over a mix of the
 * main read and write routes, driven by autocannon. Samples the server process's resident memory and
 * open file descriptors every 10 s (/proc), and prints the figures: requests, errors (connection
 * errors, time-outs, non-2xx answers), latency, memory after warm-up and at the end, descriptors.
 *
 *   npm run soak                                   # 600 s, 50 connections
 *   npm run soak -- --seconds 60 --out soak.json   # shorter, figures as JSON too
 *   npm run soak -- --seconds 180 --heap-snapshots /tmp/heap   # and two heap snapshots to compare
 *   npm run soak -- --seconds 150 --cpu-prof /tmp/prof  # server under `node --cpu-prof`: where the time goes
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { freePort } from "../tests/support/server";
import { summarise, type Profile } from "./bench/profile";
import { signIn } from "../tests/support/signin";

/** The part of autocannon's API used here (the package ships no types). */
interface Result {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface Instance {
  on(event: "response", fn: (client: unknown, statusCode: number) => void): Instance;
  once(event: "done", fn: (r: Result) => void): Instance;
  once(event: "error", fn: (e: Error) => void): Instance;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (
  opts: Record<string, unknown>,
) => Instance;

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const SECONDS = Number(arg("seconds", "600"));
const CONNECTIONS = Number(arg("connections", "50"));
const WARMUP_S = Math.min(60, Math.floor(SECONDS / 5));
const OUT = arg("out", "");
/** a folder: the server writes a heap snapshot there after warm-up and at the end (SIGUSR2) */
const HEAP_DIR = arg("heap-snapshots", "");
/** a folder: the server runs under `node --cpu-prof` and writes its profiles there (one per thread) */
const PROF_DIR = arg("cpu-prof", "");
const PAGE = Number(arg("applications-page", "50"));

async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const url = `http://127.0.0.1:${port}`;
  const flags = HEAP_DIR ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${HEAP_DIR}`] : [];
  if (PROF_DIR) flags.push("--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`);
  const child = spawn(process.execPath, [...flags, path.join("build", "server", "index.js")], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      SEED_PATIENTS: "200",
      NODE_ENV: "test",
      LOG_REQUESTS: "1",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const started = (d: Buffer) => {
      out += d.toString();
      if (!out.includes("listening on")) return;
      child.stdout!.off("data", started);
      readline.createInterface({ input: child.stdout! }).on("line", timed);
      resolve();
    };
    child.stdout!.on("data", started);
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return child;
}

/** the server's own time per answer (LOG_REQUESTS=1 lines: `POST /api/catalog 201 12.3ms`), per route and status */
const serverTimes = new Map<string, number[]>();
function timed(line: string) {
  const m = /^(GET|POST|PUT|DELETE|PATCH) (\/api\/\S*) (\d{3}) ([\d.]+)ms$/.exec(line);
  if (!m) return;
  const key = `${m[1]} ${m[2]} ${m[3]}`;
  let list = serverTimes.get(key);
  if (!list) serverTimes.set(key, (list = []));
  list.push(Number(m[4]));
}
function serverLatency() {
  const out: Record<string, { n: number; p50: number; p99: number; max: number }> = {};
  for (const [key, list] of [...serverTimes].sort()) {
    const s = [...list].sort((a, b) => a - b);
    const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]);
    out[key] = { n: s.length, p50: at(0.5), p99: at(0.99), max: Math.round(s[s.length - 1]) };
  }
  return out;
}

/** Asks the server for a heap snapshot (SIGUSR2) and resolves with its file once it is written. */
async function heapSnapshot(child: ChildProcess): Promise<string> {
  const before = new Set(readdirSync(HEAP_DIR));
  child.kill("SIGUSR2");
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const file = readdirSync(HEAP_DIR).find((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    if (!file) continue;
    const size = statSync(path.join(HEAP_DIR, file)).size;
    await new Promise((r) => setTimeout(r, 1_000));
    if (size > 0 && statSync(path.join(HEAP_DIR, file)).size === size) return path.join(HEAP_DIR, file);
  }
  throw new Error("no heap snapshot after 5 minutes");
}

interface Sample {
  rssMb: number;
  anonMb: number;
  fileMb: number;
  shmemMb: number;
  fds: number;
}
function sample(pid: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  const mb = (field: string) =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0") / 102.4) / 10;
  return {
    rssMb: Math.round(rssKb / 102.4) / 10,
    /** resident memory by kind: anonymous (heaps, malloc), file-backed (code, mapped files), shared */
    anonMb: mb("RssAnon"),
    fileMb: mb("RssFile"),
    shmemMb: mb("RssShmem"),
    fds: readdirSync(`/proc/${pid}/fd`).length,
  };
}

async function main() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hub-soak-"));
  const child = await startServer(port, dataDir);
  const stop = () => child.kill("SIGTERM");
  process.once("SIGINT", stop);
  try {
    const cookie: Record<string, string> = {};
    for (const p of ["admin", "clinic", "researcher", "patient1", "regulator"])
      cookie[p] = (await signIn(url, p)).cookie;
    let n = 0;
    const unique = () => `${process.pid}-${(n++).toString(36)}`;
    const byRoute: Record<string, Record<string, number>> = {};
    /** the first few answers of each route that were not 2xx, to say why */
    const failures: Record<string, string[]> = {};
    const count = (key: string) => (status: number, body?: string) => {
      byRoute[key] ??= {};
      byRoute[key][status] = (byRoute[key][status] ?? 0) + 1;
      if ((status < 200 || status > 299) && (failures[key] ??= []).length < 5)
        failures[key].push(`${status} ${String(body ?? "").slice(0, 300)}`);
    };
    const get = (p: string, persona: string) => ({
      method: "GET" as const,
      path: p,
      headers: { cookie: cookie[persona] },
      onResponse: count(`GET ${p}`),
    });
    const postJson = (p: string, persona: string, body: () => unknown) => ({
      method: "POST" as const,
      path: p,
      headers: { cookie: cookie[persona], "content-type": "application/json" },
      setupRequest: (req: { body?: string }) => ({ ...req, body: JSON.stringify(body()) }),
      onResponse: count(`POST ${p}`),
    });
    // the mix: roughly four reads to one write
    const requests = [
      get("/api/catalog", "researcher"),
      get("/api/graph?layer=l2&limit=200", "admin"),
      postJson("/api/catalog", "clinic", () => ({ id: `ds-soak-${unique()}`, title: "Soak dataset" })),
      get("/api/patient/profile?patientId=patient-000001", "patient1"),
      get("/api/negotiations?participantId=pharmaco", "researcher"),
      get("/api/participants", "admin"),
      postJson("/api/compliance/applications", "researcher", () => ({
        title: `Soak application ${unique()}`,
        summary: "Soak test: a data access application submitted under load.",
        purpose: "scientificResearch",
        datasets: ["dataset-lmc-omop"],
      })),
      get("/api/tasks", "researcher"),
      get("/api/analytics", "regulator"),
      get("/api/health", "admin"),
      postJson("/api/admin/policies", "admin", () => ({
        participantId: "lmc",
        policy: {
          "@id": `offer-soak-${unique()}`,
          "@type": "PolicyDefinition",
          policy: {
            "@type": "Offer",
            assigner: "did:web:lmc.nl:participant",
            permission: [{ action: "use" }],
          },
        },
      })),
      get("/api/transfers?participantId=pharmaco", "researcher"),
      // the access body's work queue: one page of the received applications, as a work-queue client
      // reads them (`--applications-page 0`: the whole list, the mix of the runs before 25 Nov 2026 03:40)
      get(
        PAGE > 0
          ? `/api/compliance/applications?state=RECEIVED&limit=${PAGE}`
          : "/api/compliance/applications",
        "regulator",
      ),
    ];

    const samples: ({ t: number } & Sample)[] = [];
    const t0 = Date.now();
    const sampler = setInterval(
      () => samples.push({ t: Math.round((Date.now() - t0) / 1000), ...sample(child.pid!) }),
      10_000,
    );
    samples.push({ t: 0, ...sample(child.pid!) });
    const snapshots: Promise<string>[] = [];
    const warmupSnapshot = HEAP_DIR
      ? setTimeout(() => snapshots.push(heapSnapshot(child)), WARMUP_S * 1000)
      : undefined;
    const statuses: Record<string, number> = {};
    const instance = autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests, timeout: 30 });
    instance.on("response", (_client: unknown, statusCode: number) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
    const result = await new Promise<Result>((resolve, reject) =>
      instance.once("done", resolve).once("error", reject),
    );
    clearInterval(sampler);
    clearTimeout(warmupSnapshot);
    samples.push({ t: Math.round((Date.now() - t0) / 1000), ...sample(child.pid!) });
    if (HEAP_DIR) {
      await new Promise((r) => setTimeout(r, 3_000)); // let the last answers and timers settle
      snapshots.push(heapSnapshot(child));
      console.log(`heap snapshots: ${(await Promise.all(snapshots)).join(", ")}`);
    }

    const afterWarmup = samples.find((s) => s.t >= WARMUP_S) ?? samples[0];
    const end = samples[samples.length - 1];
    const figures = {
      at: new Date().toISOString(),
      seconds: SECONDS,
      connections: CONNECTIONS,
      requests: result.requests.total,
      perSecond: result.requests.average,
      statuses,
      byRoute,
      failures,
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      serverLatencyMs: serverLatency(),
      memory: {
        startMb: samples[0].rssMb,
        afterWarmupMb: afterWarmup.rssMb,
        endMb: end.rssMb,
        anonAfterWarmupMb: afterWarmup.anonMb,
        anonEndMb: end.anonMb,
        fileAfterWarmupMb: afterWarmup.fileMb,
        fileEndMb: end.fileMb,
        warmupSeconds: WARMUP_S,
      },
      fds: { afterWarmup: afterWarmup.fds, end: end.fds, max: Math.max(...samples.map((s) => s.fds)) },
      load: os.loadavg(),
      cpus: os.cpus().length,
      samples,
    };
    console.log(JSON.stringify({ ...figures, samples: undefined }, null, 2));
    if (OUT) writeFileSync(OUT, JSON.stringify(figures, null, 2));
    const growthMb = end.rssMb - afterWarmup.rssMb;
    const ok = result.errors === 0 && result.timeouts === 0 && result.non2xx === 0;
    console.log(
      ok
        ? `soak: 0 errors; resident memory ${afterWarmup.rssMb} MB after warm-up, ${end.rssMb} MB at the end (${growthMb >= 0 ? "+" : ""}${growthMb.toFixed(1)} MB); descriptors ${afterWarmup.fds} → ${end.fds}`
        : `soak: ${result.errors} errors, ${result.timeouts} time-outs, ${result.non2xx} non-2xx answers (per route: ${JSON.stringify(byRoute)})`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    stop();
    await new Promise((r) => child.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (PROF_DIR) printProfiles();
}

/** the profiles the server wrote (its main thread and the embedded dataspace's worker), largest first */
function printProfiles() {
  const files = readdirSync(PROF_DIR)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => path.join(PROF_DIR, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  for (const file of files) {
    console.log(`\n== ${file}`);
    console.log(summarise(JSON.parse(readFileSync(file, "utf8")) as Profile, 30));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
