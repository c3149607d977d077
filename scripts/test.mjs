// `npm test`: build, unit + black-box API tests (vitest), then end-to-end journeys (Playwright in
// Debian's chromium). Prints one closing line "N passed, N failed, N skipped" over both runners.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";

mkdirSync("test-results", { recursive: true });
// figures of an earlier run must not be counted again
for (const f of ["vitest.json", "playwright.json"]) rmSync(path.join("test-results", f), { force: true });
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

// the passes against real systems (PostgreSQL, and the others of scripts/real-systems/passes.mjs):
// each starts its server on 127.0.0.1 with its data in a temp directory, runs its test files with the
// environment that points the hub at it, and stops it. HUB_SKIP_<NAME>=1 skips one (e.g. HUB_SKIP_NEO4J).
function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === "node_modules" || name === "build") continue;
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}
const { passes } = await import("./real-systems/passes.mjs");
const passStatus = {};
const passJson = [];
for (const pass of passes({ testFiles, readFileSync })) {
  const json = `test-results/vitest-${pass.name}.json`;
  rmSync(json, { force: true });
  passJson.push(json);
  if (process.env[`HUB_SKIP_${pass.name.toUpperCase().replace(/-/g, "_")}`] === "1") {
    console.log(`${pass.title} pass skipped (HUB_SKIP_${pass.name.toUpperCase().replace(/-/g, "_")}=1)`);
    continue;
  }
  let started;
  try {
    started = await pass.start({ log: (m) => console.log(m) });
  } catch (e) {
    console.error(`${pass.title} pass: could not start: ${e.message}`);
    passStatus[pass.name] = 1;
    continue;
  }
  const files = pass.files();
  console.log(`\n${pass.title} pass: ${files.length} test files`);
  // a pass may run its own runner (e.g. Playwright through a real identity provider); it then writes
  // vitest-shaped figures { numPassedTests, numFailedTests, numPendingTests } to `json` itself
  passStatus[pass.name] = pass.run
    ? await pass.run({ run, json, env: started.env, files })
    : run(
        [
          vitestCli,
          "run",
          "--reporter=default",
          "--reporter=json",
          `--outputFile.json=${json}`,
          ...(pass.vitestArgs ?? []),
          ...files,
        ],
        started.env,
      );
  await started.stop();
}

const playwrightCli = path.join("node_modules", "@playwright", "test", "cli.js");
const e2eStatus = run([playwrightCli, "test"]);

let passed = 0,
  failed = 0,
  skipped = 0;
for (const f of ["test-results/vitest.json", ...passJson]) {
  if (!existsSync(f)) continue;
  const v = JSON.parse(readFileSync(f, "utf8"));
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
// the failed tests by name, next to the closing line, so that the tail of a CI log says which one
const firstLine = (m) =>
  String(m ?? "")
    .split("\n")
    .find((l) => l.trim()) ?? "";
const failures = [];
for (const f of ["test-results/vitest.json", ...passJson]) {
  if (!existsSync(f)) continue;
  for (const file of JSON.parse(readFileSync(f, "utf8")).testResults ?? []) {
    const name = path.relative(process.cwd(), file.name ?? "");
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of failedTests)
      failures.push(`${name} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (failedTests.length === 0 && file.status === "failed")
      failures.push(`${name}: ${firstLine(file.message)}`);
  }
}
if (existsSync("test-results/playwright.json")) {
  const walk = (suite) => {
    for (const spec of suite.specs ?? [])
      if (!spec.ok)
        failures.push(
          `${spec.file}:${spec.line} › ${spec.title}: ${firstLine(spec.tests?.[0]?.results?.at(-1)?.error?.message)}`,
        );
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of JSON.parse(readFileSync("test-results/playwright.json", "utf8")).suites ?? []) walk(s);
}
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
if (unitStatus !== 0 && failed === 0) failed = 1; // a runner that crashed counts as a failure
if (e2eStatus !== 0 && failed === 0) failed = 1;
const passesOk = Object.values(passStatus).every((s) => s === 0);
if (!passesOk && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(unitStatus === 0 && e2eStatus === 0 && passesOk ? 0 : 1);
