import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import neo4j from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCsv } from "../../scripts/neo4j-export/csv";
import { writeCypher } from "../../scripts/neo4j-export/cypher";
import { emptyNeo4j, testNeo4j, testNeo4jDriver } from "../support/neo4j";
import { graphAnswers, startTestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * The exports of scripts/seed-export.ts loaded into a real Neo4j, then a hub started on it: the hub
 * serves the loaded graph as it is (it does not seed on top, no 503). The Cypher script is run statement
 * by statement with the driver (what cypher-shell -f does: the embedded Neo4j of the tests has no
 * cypher-shell, decision 0046); the CSV files are imported by the real `neo4j-admin database import full`
 * into the empty database of a second Neo4j before it starts (scripts/real-systems/neo4j.mjs
 * `importFrom`, decision 0068).
 */

const neo = testNeo4j();
const PATIENTS = 20;

class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

async function loadCypher(script: string) {
  const statements = script
    .split(/;\n/)
    .map((s) => s.replace(/^(\/\/.*\n|\n)+/, "").trim())
    .filter(Boolean);
  const driver = testNeo4jDriver();
  try {
    for (const s of statements) await driver.executeQuery(s);
  } finally {
    await driver.close();
  }
}

interface ImportedNeo4j {
  uri: string;
  user: string;
  password: string;
  stop(): Promise<void>;
}

/** a hub on the loaded Neo4j (not emptied: NEO4J_URI given), and what its graph routes answer */
async function hubServes(
  on: Record<"NEO4J_URI" | "NEO4J_USER" | "NEO4J_PASSWORD", string>,
  expectedNodes: number,
  expectedEdges: number,
) {
  // the graph calls' budget of every test server on Neo4j (tests/support/server.ts)
  const server = await startTestServer({
    ...on,
    UPSTREAM_TIMEOUT_MS: "10000",
    SEED_PATIENTS: String(PATIENTS),
  });
  try {
    await graphAnswers(server);
    const admin = await signIn(server.url, "admin");
    const regulator = await signIn(server.url, "regulator");
    // a 503 ("try again later") is the answer of a call past its budget on a loaded machine (a just
    // started Neo4j plans each query for the first time): asked again, a few times, as a client would
    const api = async (who: typeof admin, path: string) => {
      for (let attempt = 1; ; attempt++) {
        const res = await who.api(path);
        if (res.status !== 503 || attempt === 3) return res;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    };
    const all = await api(admin, "/api/graph?layer=all&limit=50");
    expect(all.status).toBe(200);
    const body = await all.json();
    expect(body.meta.totalNodes).toBe(expectedNodes);
    expect(body.meta.totalEdges).toBe(expectedEdges);
    expect(body.nodes).toHaveLength(50);
    const node = await api(admin, "/api/graph/node?id=patient-000001");
    expect(node.status).toBe(200);
    const expand = await api(admin, "/api/graph/expand?id=patient-000001&depth=1");
    expect(expand.status).toBe(200);
    expect((await expand.json()).nodes.length).toBeGreaterThan(1);
    const validate = await api(regulator, "/api/graph/validate");
    const v = await validate.json();
    expect(validate.status, JSON.stringify(v)).toBe(200);
    expect(v.valid).toBe(true);
    expect(v.violations).toEqual([]);
    expect(v.layers.l3.labels.Patient).toBe(PATIENTS);
  } finally {
    await server.close();
  }
}

describe.runIf(!!neo)("seed-export loaded into a real Neo4j, served by the hub", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(path.join(tmpdir(), "hub-export-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the Cypher export", async () => {
    await emptyNeo4j();
    const sink = new Collector();
    const summary = await writeCypher(sink, { patients: PATIENTS });
    await loadCypher(sink.text);
    await hubServes(neo!, summary.nodes, summary.edges);
  }, 300_000);

  it("the CSV export, imported by neo4j-admin database import full", async () => {
    const summary = await writeCsv(dir, { patients: PATIENTS });
    // @ts-expect-error -- a plain ES module of the test tooling, without types
    const { startNeo4j } = (await import("../../scripts/real-systems/neo4j.mjs")) as {
      startNeo4j: (o: { importFrom: string }) => Promise<ImportedNeo4j>;
    };
    const imported = await startNeo4j({ importFrom: dir });
    try {
      // what neo4j-admin wrote, before any hub (one would seed the same 20 patients into an empty graph)
      const driver = neo4j.driver(imported.uri, neo4j.auth.basic(imported.user, imported.password));
      try {
        const r = await driver.executeQuery(
          "MATCH (n:GraphNode) WITH count(n) AS nodes MATCH ()-[e]->() RETURN nodes, count(e) AS edges",
        );
        expect(Number(r.records[0].get("nodes"))).toBe(summary.nodes);
        expect(Number(r.records[0].get("edges"))).toBe(summary.edges);
      } finally {
        await driver.close();
      }
      await hubServes(
        { NEO4J_URI: imported.uri, NEO4J_USER: imported.user, NEO4J_PASSWORD: imported.password },
        summary.nodes,
        summary.edges,
      );
    } finally {
      await imported.stop();
    }
  }, 600_000);
});
