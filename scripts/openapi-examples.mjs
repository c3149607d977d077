// Folds the answers recorded by the black-box tests (tests/support/answer-check.ts, run with
// HUB_OPENAPI_EXAMPLES=<dir>) into server/openapi/examples.json: one example per operation and status,
// shortened (arrays to 2 items, strings to 120 characters, 4 levels deep, credentials blanked) so the document stays small.
// Usage: HUB_OPENAPI_EXAMPLES=/tmp/ex npx vitest run tests/api/<files> && node scripts/openapi-examples.mjs /tmp/ex
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/openapi-examples.mjs <dir of examples-*.json>");
  process.exit(1);
}
const target = path.join("server", "openapi", "examples.json");
// credentials of the recording run (device tokens, nonces, codes) are not worth publishing, even from a temp server
const SECRET = /jwt|token|secret|nonce|password|code$/i;
const shorten = (v, depth = 0, key = "") => {
  if (Array.isArray(v)) return depth > 3 ? [] : v.slice(0, 2).map((x) => shorten(x, depth + 1));
  if (v && typeof v === "object") {
    if (depth > 3) return {};
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x, depth + 1, k)]));
  }
  if (typeof v === "string" && SECRET.test(key)) return "…";
  return typeof v === "string" && v.length > 120 ? `${v.slice(0, 120)}…` : v;
};
const out = JSON.parse(readFileSync(target, "utf8"));
for (const f of readdirSync(dir)
  .filter((n) => /^examples-\d+\.json$/.test(n))
  .sort()) {
  for (const [key, value] of Object.entries(JSON.parse(readFileSync(path.join(dir, f), "utf8"))))
    out[key] ??= shorten(value);
}
const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} examples in ${target}`);
