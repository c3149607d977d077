// The Neo4j pass: the graph store contract tests, the tests of the Neo4j adapter against the real
// server, and the black-box API tests that read or write the graph, with NEO4J_URI at a throw-away
// Neo4j 5.26 Community (scripts/real-systems/neo4j.mjs, decision 0046). Neo4j Community holds one
// database, so the files run one at a time (each fresh test server empties it).
import { startNeo4j } from "./neo4j.mjs";

const NEO4J_TESTS = [
  "tests/contract/graph-store.test.ts",
  "tests/contract/neo4j-store.test.ts",
  "tests/contract/neo4j-export.test.ts",
  "tests/api/foundation.test.ts",
  "tests/api/minimisation.test.ts",
  "tests/api/insight-proxy.test.ts",
  "tests/api/access-body-journey.test.ts",
  "tests/api/two-instances.test.ts",
];

export function neo4jPass() {
  return {
    name: "neo4j",
    title: "Neo4j",
    files: () => NEO4J_TESTS,
    async start({ log }) {
      if (process.env.NEO4J_URI) return { env: {}, stop: async () => {} };
      const neo = await startNeo4j({ log });
      return {
        env: { NEO4J_URI: neo.uri, NEO4J_USER: neo.user, NEO4J_PASSWORD: neo.password },
        stop: () => neo.stop(),
      };
    },
    run({ run, json, env, files }) {
      const vitestCli = "node_modules/vitest/vitest.mjs";
      return run(
        [
          vitestCli,
          "run",
          "--no-file-parallelism",
          "--reporter=default",
          "--reporter=json",
          `--outputFile.json=${json}`,
          ...files,
        ],
        env,
      );
    },
  };
}
