import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "~": path.resolve("app") } },
  test: {
    globals: true,
    include: [
      "server/**/*.test.ts",
      "app/**/*.test.{ts,tsx}",
      "desktop/**/*.test.ts",
      "scripts/**/*.test.ts",
      "tests/api/**/*.test.ts",
      "tests/contract/**/*.test.ts",
      "tests/connector/**/*.test.ts",
    ],
    // the bench's own checks run with the bench (scripts/bench/vitest.config.ts)
    exclude: ["node_modules", "build", ".builds", "tests/e2e/**", "scripts/bench/**"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
