// `npm test`: build, unit + black-box API tests (vitest), then end-to-end journeys (Playwright in
// Debian's chromium). Prints one closing line "N passed, N failed, N skipped" over both runners.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

mkdirSync("test-results", { recursive: true });
const run = (args, env = {}) =>
  spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;

// the tree stays formatted by the project's own Prettier config
const prettierCli = path.join("node_modules", "prettier", "bin", "prettier.cjs");
if (run([prettierCli, "--check", "--log-level", "warn", "."]) !== 0) {
  console.error("prettier --check failed: run `npm run format`");
  console.log("\n0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// no import cycle anywhere in server/ or app/ (docs/decisions/0008-server-layers.md)
const madgeCli = path.join("node_modules", "madge", "bin", "cli.js");
if (run([madgeCli, "--circular", "--no-spinner", "--extensions", "ts,tsx", "server", "app"]) !== 0) {
  console.error("madge --circular found an import cycle in server/ or app/");
  console.log("\n0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

if (run(["scripts/build.mjs"]) !== 0) {
  console.error("build failed");
  process.exit(1);
}

// the runners' own entry files (not exported as package subpaths, so not require.resolve-able)
const vitestCli = path.join("node_modules", "vitest", "vitest.mjs");
const unitStatus = run([
  vitestCli,
  "run",
  "--reporter=default",
  "--reporter=json",
  "--outputFile.json=test-results/vitest.json",
]);

const playwrightCli = path.join("node_modules", "@playwright", "test", "cli.js");
const e2eStatus = run([playwrightCli, "test"]);

let passed = 0,
  failed = 0,
  skipped = 0;
if (existsSync("test-results/vitest.json")) {
  const v = JSON.parse(readFileSync("test-results/vitest.json", "utf8"));
  passed += v.numPassedTests ?? 0;
  failed += v.numFailedTests ?? 0;
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}
if (existsSync("test-results/playwright.json")) {
  const p = JSON.parse(readFileSync("test-results/playwright.json", "utf8"));
  passed += (p.stats?.expected ?? 0) + (p.stats?.flaky ?? 0);
  failed += p.stats?.unexpected ?? 0;
  skipped += p.stats?.skipped ?? 0;
}
if (unitStatus !== 0 && failed === 0) failed = 1; // a runner that crashed counts as a failure
if (e2eStatus !== 0 && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(unitStatus === 0 && e2eStatus === 0 ? 0 : 1);
