import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testNeo4j } from "../support/neo4j";
import { graphAnswers, startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * A real Neo4j killed under the hub (kill -9 of its JVM) and started again on the same data: the graph's
 * routes answer 503 within UPSTREAM_TIMEOUT_MS while it is away, /api/health says graphdb false, and
 * once Neo4j is back the hub serves again without a restart, with the write it acknowledged before the
 * kill. Runs in the Neo4j pass (it starts a Neo4j of its own, so the pass's one is left alone).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON
type Json = any;
const TIMEOUT_MS = 3000;

interface RealNeo4j {
  uri: string;
  user: string;
  password: string;
  kill(): void;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function eventually(f: () => Promise<boolean>, ms = 120_000) {
  const until = Date.now() + ms;
  while (!(await f().catch(() => false))) {
    if (Date.now() > until) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.runIf(!!testNeo4j())("Neo4j killed and started again under the hub", () => {
  let neo: RealNeo4j;
  let server: TestServer;
  let clinic: Signed;

  beforeAll(async () => {
    // @ts-expect-error -- a plain ES module of the test tooling, without types
    const { startNeo4j } = (await import("../../scripts/real-systems/neo4j.mjs")) as {
      startNeo4j: () => Promise<RealNeo4j>;
    };
    neo = await startNeo4j();
    server = await startTestServer({
      NEO4J_URI: neo.uri,
      NEO4J_USER: neo.user,
      NEO4J_PASSWORD: neo.password,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      SEED_PATIENTS: "20",
    });
    await graphAnswers(server);
    clinic = await signIn(server.url, "clinic");
  }, 400_000);

  afterAll(async () => {
    await server?.close();
    await neo?.stop();
  });

  it("answers 503 within the time-out while Neo4j is away and recovers without a restart", async () => {
    const id = `ds-kill-neo4j-${randomUUID().slice(0, 8)}`;
    const created = await clinic.api("/api/catalog", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, title: `Acknowledged before the kill ${id}` }),
    });
    expect(created.status).toBe(201);

    neo.kill();
    // a burst of graph reads, each a query the hub has not answered before (no kept answer)
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        clinic.api(`/api/graph?layer=l2&limit=${31 + i}`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as Json,
          ms: Date.now() - t0,
        })),
      ),
    );
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.body.error).toEqual(expect.any(String));
      expect(a.ms).toBeLessThan(TIMEOUT_MS + 2000);
    }
    await eventually(async () => !(await (await fetch(`${server.url}/api/health`)).json()).graphdb, 30_000);

    await neo.restart();
    await eventually(async () => (await clinic.api("/api/graph?layer=l2&limit=41")).status === 200);
    // health answers from its background probe (one a second): its next reading says so
    await eventually(async () => (await (await fetch(`${server.url}/api/health`)).json()).graphdb, 30_000);
    const catalogue = (await (await clinic.api("/api/catalog")).json()) as Json[];
    expect(catalogue.map((d) => d.id)).toContain(id);
  }, 300_000);
});
