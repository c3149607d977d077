import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { startServer, type RunningServer } from "../../server/app";
import { databaseFor, testDatabaseUrl } from "./postgres";

/** A free loopback port (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A free port outside the kernel's ephemeral range (32768–60999 here), for a server that is killed and
 * restarted on the same port: an ephemeral port freed by the kill can be handed to another test's
 * `freePort()` before the restart, which then fails with EADDRINUSE.
 */
export async function stablePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return freePort();
}

export interface TestServer extends RunningServer {
  dataDir: string;
}

/**
 * Starts the real server (built Remix app, embedded provider, SQLite in a temp DATA_DIR) on
 * 127.0.0.1 and a free port. Requires `node scripts/build.mjs` to have run (npm test does).
 * With DATABASE_URL set (the PostgreSQL pass of npm test), the relational store is a database of
 * its own on that cluster, named after the DATA_DIR, so a restart on the same DATA_DIR finds it.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { dataDir?: string } = {},
): Promise<TestServer> {
  const port = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), "hub-test-"));
  const pg = testDatabaseUrl();
  const databaseUrl = pg && !("DATABASE_URL" in env) ? await databaseFor(pg, dataDir) : undefined;
  const config = loadConfig({
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    SEED_PATIENTS: "40",
    UPSTREAM_TIMEOUT_MS: "2000",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const server = await startServer(config, {
    remixBuildPath: path.resolve(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js"),
  });
  return {
    ...server,
    dataDir,
    async close() {
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
