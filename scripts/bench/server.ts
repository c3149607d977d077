import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../tests/support/server";
import { spawnBuiltServer } from "../../tests/support/built-server";

/**
 * The built server as a child process for the bench and the profiler: its own DATA_DIR (seeded from
 * empty unless `dataDir` already holds a store), the embedded dataspace, loopback only.
 */

export interface BenchServer {
  url: string;
  child: ChildProcess;
  dataDir: string;
  readyMs: number;
}

export async function startBenchServer(
  patients: number,
  opts: { nodeArgs?: string[]; dataDir?: string; env?: Record<string, string> } = {},
): Promise<BenchServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "hub-bench-"));
  const t0 = Date.now();
  const { url, child } = await spawnBuiltServer({
    port: await freePort(),
    dataDir,
    patients,
    nodeArgs: opts.nodeArgs,
    env: opts.env,
    stderr: "inherit",
    // seeding 100,000 patients takes minutes
    timeoutMs: 3_600_000,
  });
  return { url, child, dataDir, readyMs: Date.now() - t0 };
}

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc: divided by the requests of a
 * run it gives the server's own cost per request, which other load on a shared machine barely moves.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line (12 and 13 after the command name)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100;
