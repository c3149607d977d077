// A throw-away PostgreSQL from Debian's `postgresql` package, for the tests and the bench: its data in a
// temp directory, listening on 127.0.0.1 only, stopped (and its directory removed) by `stop()` or when
// this process exits. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
import { execFileSync, spawn } from "node:child_process";
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./real-systems/jvm.mjs";

/** the newest installed server's bin directory, or undefined */
export function findPostgresBin() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], "bin") : undefined;
}

function postgresUid() {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Starts a cluster and resolves `{ url, port, stop }` once it accepts connections. `url` points at the
 * `postgres` database of superuser `hub` (no password, trust on 127.0.0.1 inside the temp cluster).
 */
export async function startPostgres({ log = () => {} } = {}) {
  const bin = findPostgresBin();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install -y postgresql)");
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "hub-pg-"));
  const owner = root ? postgresUid() : undefined;
  if (root && !owner)
    throw new Error("running as root, and there is no `postgres` user to run PostgreSQL as");
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = (cmd, args) => (owner ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args]);
  const data = path.join(dir, "data");
  const [initCmd, initArgs] = as(path.join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "hub",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  execFileSync(initCmd, initArgs, { stdio: "ignore" });
  const port = await freePort();
  const [cmd, args] = as(path.join(bin, "postgres"), [
    "-D",
    data,
    "-h",
    "127.0.0.1",
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=300",
    "-c",
    "shared_buffers=64MB",
  ]);
  // PostgreSQL's log goes to a file, never to a pipe: `npm test` runs each pass with spawnSync, so
  // nothing would read a pipe while the tests run, and once its 64 KiB were full every backend that
  // logs a line would block on the write (the CI runs of 29 Nov: DROP DATABASE, INSERT and UPDATE
  // stuck for minutes on an idle machine, every later test of the pass timed out)
  const logFile = path.join(dir, "postgres.log");
  const logFd = openSync(logFile, "a");
  const child = spawn(cmd, args, { stdio: ["ignore", logFd, logFd] });
  closeSync(logFd);
  const tail = () => {
    try {
      return readFileSync(logFile, "utf8").slice(-4000);
    } catch {
      return "";
    }
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", onExit);
    if (child.exitCode === null) {
      const [c, a] = as(path.join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"]);
      try {
        execFileSync(c, a, { stdio: "ignore", timeout: 15_000 });
      } catch {
        child.kill("SIGKILL");
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => {
    if (stopped) return;
    try {
      const [c, a] = as(path.join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate"]);
      execFileSync(c, a, { stdio: "ignore", timeout: 10_000 });
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", onExit);
  const deadline = Date.now() + 30_000;
  const { default: pg } = await import("pg");
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`PostgreSQL exited at start: ${tail()}`);
    }
    const client = new pg.Client({ host: "127.0.0.1", port, user: "hub", database: "postgres" });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => {});
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not accept connections within 30 s: ${tail()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  log(`PostgreSQL ${path.basename(path.dirname(bin))} on 127.0.0.1:${port} (data in ${dir})`);
  return { url: `postgres://hub@127.0.0.1:${port}/postgres`, port, stop };
}
