import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { startServer, type RunningServer, type StartOptions } from "../../server/app";
import { mismatchReport, watchAnswers, type AnswerMismatch } from "./answer-check";
import { emptyNeo4j, testNeo4j } from "./neo4j";
import { databaseFor, testDatabaseUrl } from "./postgres";

/**
 * A free loopback port outside the kernel's ephemeral range (32768–60999 here). A port from that range
 * (what `listen(0)` hands out) can be taken, between the check and the server's own `listen`, as the
 * local end of any outgoing connection — a PostgreSQL client, a fetch, a killed server's successor — and
 * the server then fails with EADDRINUSE (CI saw it once on the PostgreSQL pass).
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isFree(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

export interface TestServer extends RunningServer {
  dataDir: string;
  /** the /api answers so far that do not fit the OpenAPI document (answer-check.ts) */
  mismatches: AnswerMismatch[];
}

/**
 * Starts the real server (built Remix app, embedded provider, SQLite in a temp DATA_DIR) on
 * 127.0.0.1 and a free port. Requires `node scripts/build.mjs` to have run (npm test does).
 * With DATABASE_URL set (the PostgreSQL pass of npm test), the relational store is a database of
 * its own on that cluster, named after the DATA_DIR, so a restart on the same DATA_DIR finds it.
 * With NEO4J_URI set (the Neo4j pass), the graph is that Neo4j: emptied for a new DATA_DIR, kept for a
 * restart; the server is handed over once the graph is seeded and answers.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: {
    dataDir?: string;
    start?: Pick<StartOptions, "pageSlotLeaseMs">;
    /** false: a test that provokes server faults on purpose keeps its answers unchecked */
    answerCheck?: boolean;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), "hub-test-"));
  const pg = testDatabaseUrl();
  const databaseUrl = pg && !("DATABASE_URL" in env) ? await databaseFor(pg, dataDir) : undefined;
  const neo = testNeo4j() && !("NEO4J_URI" in env) ? testNeo4j() : undefined;
  if (neo && !opts.dataDir) await emptyNeo4j();
  // an embedded Neo4j JVM on two shared cores can take seconds over a first query: a wider budget than
  // the embedded graph's 2 s, unless the test sets its own
  if (neo) env = { ...neo, UPSTREAM_TIMEOUT_MS: "10000", ...env };
  const managedNeo4j = !!neo;
  // two test files may still draw the same port in the same instant: the loser starts again on another
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await startOn(await freePort(), dataDir, databaseUrl, env, opts);
      if (managedNeo4j) await graphAnswers(server);
      return server;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt === 3) throw e;
    }
  }
}

async function startOn(
  port: number,
  dataDir: string,
  databaseUrl: string | undefined,
  env: Record<string, string>,
  opts: { dataDir?: string; start?: Pick<StartOptions, "pageSlotLeaseMs">; answerCheck?: boolean },
): Promise<TestServer> {
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
    ...opts.start,
  });
  // every /api answer is checked against the OpenAPI document; what does not fit fails the file at close
  const mismatches = watchAnswers(server.http);
  return {
    ...server,
    dataDir,
    mismatches,
    async close() {
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      const report = opts.answerCheck === false ? undefined : mismatchReport(mismatches);
      if (report) throw new Error(report);
    },
  };
}

/** Neo4j starts in the background (decision 0019): waits until its start-up and seeding are done */
export async function graphAnswers(server: RunningServer): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      await server.services.graph.countNodes();
      return;
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
