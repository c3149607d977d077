import { execFile, execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Measured } from "./load";

/**
 * The bench's load generator: wrk (Debian's `wrk`, C, epoll, one thread). On these 2 cores the load
 * generator shares the machine with the server; the `node:http` client cost about as much CPU per
 * answer as the server's cheapest routes, so every route, and the bare baseline above all, was
 * measured against a client taking most of a core (docs/decisions/0033). wrk answers the same
 * questions (per-request latency of keep-alive connections, answers that are not 2xx, body bytes)
 * for a fraction of that. `BENCH_LOAD=node` keeps the `node:http` client.
 */

const REPORT = path.join(path.dirname(fileURLToPath(import.meta.url)), "wrk-report.lua");

let found: boolean | undefined;
export function wrkAvailable(): boolean {
  if (found === undefined) {
    try {
      execFileSync("wrk", ["--version"], { stdio: "ignore" });
      found = true;
    } catch (e) {
      // wrk --version exits 1 after printing its version: it is there when it could be started at all
      found = (e as NodeJS.ErrnoException).code !== "ENOENT";
    }
  }
  return found;
}

/** Installs Debian's wrk when it is missing (as `npm test` installs chromium); false when it cannot. */
export function ensureWrk(): boolean {
  if (wrkAvailable()) return true;
  const sudo = typeof process.getuid === "function" && process.getuid() === 0 ? "" : "sudo ";
  console.log("Installing Debian's wrk, the bench's load generator…");
  try {
    execFileSync(
      "sh",
      [
        "-c",
        `${sudo}apt-get install -y -qq wrk || (${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq wrk)`,
      ],
      {
        stdio: "inherit",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      },
    );
  } catch {
    /* reported below */
  }
  found = undefined;
  return wrkAvailable();
}

interface WrkReport {
  requests: number;
  durationUs: number;
  bodyBytes: number;
  notOk: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Drives `url` with wrk: `concurrency` keep-alive connections on one thread for whole `seconds`. */
export function driveWrk(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  concurrency: number,
): Promise<Measured> {
  const args = [
    "-t1",
    `-c${concurrency}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    "--timeout",
    "30s",
    "-s",
    REPORT,
    ...Object.entries({ ...headers, "accept-encoding": "gzip" }).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile("wrk", args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`wrk failed: ${stderr || err.message}`));
      const line = stdout.split("\n").find((l) => l.startsWith('{"requests"'));
      if (!line) return reject(new Error(`wrk printed no report: ${stdout}`));
      const r = JSON.parse(line) as WrkReport;
      const problems = [
        ...(r.connect ? [`${r.connect} connection errors`] : []),
        ...(r.read || r.write ? [`${r.read + r.write} socket errors`] : []),
        ...(r.timeout ? [`${r.timeout} time-outs (30 s)`] : []),
      ];
      resolve({
        requests: r.requests,
        rps: r.requests / (r.durationUs / 1e6),
        p50: r.p50 / 1000,
        p95: r.p95 / 1000,
        p99: r.p99 / 1000,
        errors: r.notOk + r.connect + r.read + r.write + r.timeout,
        kbPerResponse: r.bodyBytes / Math.max(1, r.requests) / 1024,
        problems,
      });
    });
  });
}
