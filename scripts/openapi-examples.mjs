// Builds server/openapi/examples.json from the answers recorded by the black-box tests
// (tests/support/answer-check.ts, run with HUB_OPENAPI_EXAMPLES=<dir>): for each operation the request
// of its first success ("METHOD /path request": params, query, body) and the first answer of each status
// ("METHOD /path STATUS"; null for a 204), shortened (arrays to 2 items, long strings cut, credentials
// blanked) so the document stays small. The file is built afresh, so an answer that changed is re-recorded.
// Usage: node scripts/openapi-examples.mjs --record   (runs the tests below, then folds)
//        node scripts/openapi-examples.mjs <dir>      (folds a recording made by hand)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** the black-box tests whose answers are the examples: together they reach every operation */
export const RECORDING_TESTS = [
  "openapi-examples",
  "authorisation",
  "foundation",
  "access-body-journey",
  "access-body",
  "access-body-transitions",
  "patient-app-record",
  "eudi",
  "governance",
  "governance-operator",
  "governance-policies",
  "dataspace-local-negotiation",
  "dataspace-catalogue-holder",
  "dataspace-permits",
  "insight",
].map((name) => `tests/api/${name}.test.ts`);

let dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/openapi-examples.mjs --record | <dir of examples-*.json>");
  process.exit(1);
}
const recording = dir === "--record";
if (recording) {
  dir = mkdtempSync(path.join(tmpdir(), "hub-openapi-examples-"));
  const run = spawnSync("npx", ["vitest", "run", ...RECORDING_TESTS], {
    stdio: "inherit",
    env: { ...process.env, HUB_OPENAPI_EXAMPLES: dir },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
const target = path.join("server", "openapi", "examples.json");
// credentials of the recording run (device tokens, nonces, codes) are not worth publishing, even from a temp server
const SECRET = /jwt|token|secret|nonce|password/i;
const shorten = (v, depth = 0, key = "") => {
  if (Array.isArray(v)) return v.slice(0, 2).map((x) => shorten(x, depth + 1));
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x, depth + 1, k)]));
  if (typeof v === "string" && SECRET.test(key)) return "…";
  return typeof v === "string" && v.length > 300 ? `${v.slice(0, 300)}…` : v;
};
const out = {};
for (const f of readdirSync(dir)
  .filter((n) => /^examples-\d+\.json$/.test(n))
  .sort()) {
  for (const [key, value] of Object.entries(JSON.parse(readFileSync(path.join(dir, f), "utf8"))))
    if (!(key in out))
      out[key] = key.endsWith(" request")
        ? value
        : key === "GET /api/openapi.json 200" // the document itself: its head, not a copy of itself
          ? { ...value, paths: {} }
          : shorten(value);
}
const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
if (recording) rmSync(dir, { recursive: true, force: true });
const operations = new Set(Object.keys(sorted).map((k) => k.split(" ").slice(0, 2).join(" ")));
console.log(`${Object.keys(sorted).length} examples of ${operations.size} operations in ${target}`);
