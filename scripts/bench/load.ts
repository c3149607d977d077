import http from "node:http";
import { gunzipSync } from "node:zlib";
import { driveWrk, wrkAvailable } from "./wrk";

/**
 * Load generation for `npm run bench`: wrk when it is installed (scripts/bench/wrk.ts), otherwise
 * keep-alive `node:http` connections from this process; and the capture of one answer as served
 * (status, headers, bytes, still gzip-encoded) for the bare baseline server.
 */

export interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  kbPerResponse: number;
  problems: string[];
  /** the server process's CPU time per request during the run (user + system), where measured */
  cpuMsPerRequest?: number;
}

export interface Captured {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** the decoded body as text */
  text: string;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export function capture(url: string, headers: Record<string, string>): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { ...headers, "accept-encoding": "gzip" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") out[k] = v;
        const text = (out["content-encoding"] === "gzip" ? gunzipSync(body) : body).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: out, body, text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** Which load generator `drive` uses: wrk unless it is missing or `BENCH_LOAD=node`. */
export function loadGenerator(): "wrk" | "node" {
  return process.env.BENCH_LOAD !== "node" && wrkAvailable() ? "wrk" : "node";
}

/**
 * Drives `url` with `concurrency` keep-alive connections for `seconds`. `check` looks at bodies: ~1 %
 * of them with the `node:http` client; with wrk, three answers fetched right after the run.
 */
export async function drive(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  concurrency: number,
  check?: (text: string) => string | null,
): Promise<Measured> {
  if (loadGenerator() === "node") return driveNode(url, headers, seconds, concurrency, check);
  const m = await driveWrk(url, headers, seconds, concurrency);
  if (check) {
    const problems = new Set(m.problems);
    for (let i = 0; i < 3; i++) {
      const a = await capture(url, headers);
      const p = a.status >= 200 && a.status < 300 ? check(a.text) : `answered ${a.status} after the run`;
      if (p) problems.add(p);
    }
    m.problems = [...problems];
  }
  return m;
}

/** The `node:http` client: `concurrency` keep-alive connections for `seconds`; `check` looks at ~1 % of bodies. */
async function driveNode(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  concurrency: number,
  check?: (text: string) => string | null,
): Promise<Measured> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const get = () =>
    new Promise<{ status: number; text: string | null; bytes: number }>((resolve, reject) => {
      const keep = check !== undefined && Math.random() < 0.01;
      const req = http.get(target, { agent, headers: { ...headers, "accept-encoding": "gzip" } }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
        });
        res.on("end", () => {
          let text: string | null = null;
          if (keep) {
            const raw = Buffer.concat(chunks);
            text = (res.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
          }
          resolve({ status: res.statusCode ?? 0, text, bytes });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
    });

  const latencies: number[] = [];
  const problems = new Set<string>();
  let errors = 0;
  let bytes = 0;
  const deadline = performance.now() + seconds * 1000;
  async function worker() {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const r = await get();
        bytes += r.bytes;
        if (r.status < 200 || r.status >= 300) errors++;
        else if (r.text !== null && check) {
          const p = check(r.text);
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

/** Records `answer` as the baseline server's answer for `path`. */
export async function recordBaseline(baseUrl: string, path: string, answer: Captured): Promise<void> {
  const headers: Record<string, string> = { "x-answer-status": String(answer.status) };
  for (const k of ["content-type", "content-encoding", "vary", "cache-control"])
    if (answer.headers[k]) headers[`x-answer-${k}`] = answer.headers[k];
  const res = await fetch(`${baseUrl}/__bench?path=${encodeURIComponent(path)}`, {
    method: "PUT",
    headers,
    body: new Uint8Array(answer.body),
  });
  if (res.status !== 204) throw new Error(`baseline server answered ${res.status}`);
}
