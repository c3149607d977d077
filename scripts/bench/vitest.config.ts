import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The bench's own checks, run by `npm run bench` before it measures (not by `npm test`): that every GET
 * route of the route table has a bench row (routes.test.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: { include: ["scripts/bench/**/*.test.ts"], testTimeout: 30_000 },
});
