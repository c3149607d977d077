// The Neo4j pass: the graph store contract tests, the tests of the Neo4j adapter against the real
// server, and the black-box API tests that read or write the graph, with NEO4J_URI at a throw-away
// Neo4j 5.26 Community (scripts/real-systems/neo4j.mjs, decision 0046). Neo4j Community holds one
// database, so the files run one at a time (each fresh test server empties it). The two-instance test
// runs last with a throw-away PostgreSQL as well (two instances on PostgreSQL and Neo4j).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { startPostgres } from "../postgres.mjs";
import { startNeo4j } from "./neo4j.mjs";

const NEO4J_TESTS = [
  "tests/contract/graph-store.test.ts",
  "tests/contract/neo4j-store.test.ts",
  "tests/contract/neo4j-export.test.ts",
  "tests/api/foundation.test.ts",
  "tests/api/minimisation.test.ts",
  "tests/api/insight-proxy.test.ts",
  "tests/api/access-body-journey.test.ts",
  "tests/api/faults-neo4j-kill.test.ts",
  "tests/api/graph-audit-kill.test.ts",
];
/** run with DATABASE_URL too */
const WITH_POSTGRES = ["tests/api/two-instances.test.ts"];

export function neo4jPass() {
  let pgUrl = process.env.DATABASE_URL;
  return {
    name: "neo4j",
    title: "Neo4j",
    files: () => [...NEO4J_TESTS, ...WITH_POSTGRES],
    async start({ log }) {
      const stops = [];
      const env = {};
      if (!process.env.NEO4J_URI) {
        const neo = await startNeo4j({ log });
        stops.push(() => neo.stop());
        Object.assign(env, { NEO4J_URI: neo.uri, NEO4J_USER: neo.user, NEO4J_PASSWORD: neo.password });
      }
      if (!pgUrl) {
        const pg = await startPostgres({ log });
        stops.push(() => pg.stop());
        pgUrl = pg.url;
      }
      return { env, stop: async () => Promise.all(stops.map((s) => s())) };
    },
    run({ run, json, env, files }) {
      const vitest = (list, extraEnv, out) =>
        run(
          [
            "node_modules/vitest/vitest.mjs",
            "run",
            "--no-file-parallelism",
            "--reporter=default",
            "--reporter=json",
            `--outputFile.json=${out}`,
            ...list,
          ],
          { ...env, ...extraEnv },
        );
      const parts = [`${json}.graph`, `${json}.pg`];
      const first = files.filter((f) => !WITH_POSTGRES.includes(f));
      const second = files.filter((f) => WITH_POSTGRES.includes(f));
      const status = [
        first.length ? vitest(first, {}, parts[0]) : 0,
        second.length ? vitest(second, { DATABASE_URL: pgUrl }, parts[1]) : 0,
      ];
      // one figure file for npm test's count
      const sum = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 };
      for (const p of parts) {
        try {
          const v = JSON.parse(readFileSync(p, "utf8"));
          for (const k of Object.keys(sum)) sum[k] += v[k] ?? 0;
        } catch {
          // that part did not run
        }
        rmSync(p, { force: true });
      }
      writeFileSync(json, JSON.stringify(sum));
      return status.every((s) => s === 0) ? 0 : 1;
    },
  };
}
