import neo4j from "neo4j-driver";

/**
 * The Neo4j the tests may use: NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD) when it is set (npm test's
 * Neo4j pass sets it to a throw-away server from scripts/real-systems/neo4j.mjs), else undefined and
 * the tests run on the embedded graph. Neo4j Community holds one database: the pass runs its files
 * one at a time, and a fresh test server starts on an emptied graph.
 */
export function testNeo4j(): Record<"NEO4J_URI" | "NEO4J_USER" | "NEO4J_PASSWORD", string> | undefined {
  const uri = process.env.NEO4J_URI;
  if (!uri) return undefined;
  return {
    NEO4J_URI: uri,
    NEO4J_USER: process.env.NEO4J_USER ?? "neo4j",
    NEO4J_PASSWORD: process.env.NEO4J_PASSWORD ?? "",
  };
}

/** a driver on the test Neo4j (the caller closes it) */
export function testNeo4jDriver() {
  const env = testNeo4j();
  if (!env) throw new Error("NEO4J_URI is not set");
  return neo4j.driver(env.NEO4J_URI, neo4j.auth.basic(env.NEO4J_USER, env.NEO4J_PASSWORD), {
    disableLosslessIntegers: true,
  });
}

/** removes every node and relationship (in batches, so a large graph does not need one huge transaction) */
export async function emptyNeo4j(): Promise<void> {
  const driver = testNeo4jDriver();
  try {
    for (;;) {
      const r = await driver.executeQuery(
        "MATCH (n) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS n",
      );
      if (Number(r.records[0].get("n")) === 0) break;
    }
  } finally {
    await driver.close();
  }
}

/**
 * Until the hub at `url` says its graph answers (/api/health `graphdb`): on Neo4j its start-up runs in
 * the background and graph calls answer 503 meanwhile. A health call that fails counts as not yet.
 */
export async function graphReady(url: string, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const h = (await fetch(`${url}/api/health`)
      .then((r) => r.json())
      .catch(() => ({}))) as { graphdb?: boolean };
    if (h.graphdb) return;
    if (Date.now() > end) throw new Error(`graph of ${url} not ready`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
