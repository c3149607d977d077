// The PostgreSQL pass: every test that runs per store (storeDialects / testDatabaseUrl) and the
// black-box API tests that do not depend on the store, with DATABASE_URL at a throw-away cluster.
import { startPostgres } from "../postgres.mjs";

const PG_API_TESTS = [
  "tests/api/foundation.test.ts",
  "tests/api/access-body.test.ts",
  "tests/api/access-body-journey.test.ts",
  "tests/api/access-body-transitions.test.ts",
  "tests/api/governance-policies.test.ts",
  "tests/api/eudi.test.ts",
  "tests/api/minimisation.test.ts",
  "tests/api/rate-limits.test.ts",
];

export function postgresPass({ testFiles, readFileSync }) {
  return {
    name: "postgres",
    title: "PostgreSQL",
    files() {
      const perStore = ["server", "tests/api", "tests/contract"]
        .flatMap(testFiles)
        .filter((f) => /storeDialects\(|testDatabaseUrl\(/.test(readFileSync(f, "utf8")));
      return [...new Set([...perStore, ...PG_API_TESTS])];
    },
    async start({ log }) {
      if (process.env.DATABASE_URL) return { env: {}, stop: async () => {} };
      const pg = await startPostgres({ log });
      return { env: { DATABASE_URL: pg.url }, stop: () => pg.stop() };
    },
  };
}
