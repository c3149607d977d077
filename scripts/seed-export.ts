/**
 * Writes the synthetic knowledge graph for loading into Neo4j.
 *
 *   tsx scripts/seed-export.ts --patients 10000 --format cypher --out graph.cypher [--seed 42]
 *   tsx scripts/seed-export.ts --patients 10000 --format csv --out ./import [--seed 42]
 *
 * cypher: a script for `cypher-shell -f graph.cypher` (the hub's schema first, then batched CREATEs).
 * csv: files for `neo4j-admin database import full` (one nodes file per label, one relationships file);
 *   it prints the command (scripts/real-systems/neo4j.mjs `importArgs`, what the tests run).
 * Both give every node `:GraphNode` and its kind's label, `layer` and `seq`: a hub started on the loaded
 * database serves it as it is (tests/contract/neo4j-export.test.ts, decisions 0046 and 0068).
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { writeCsv } from "./neo4j-export/csv";
import { writeCypher } from "./neo4j-export/cypher";
import { DEFAULT_SEED } from "../server/graph/synthetic/generate";
import { endStream } from "./neo4j-export/output";
import { createProgressBar } from "../server/graph/synthetic/progress";
// @ts-expect-error -- a plain ES module without types (scripts/real-systems/neo4j.mjs)
import { importArgs } from "./real-systems/neo4j.mjs";

const USAGE =
  "usage: tsx scripts/seed-export.ts --patients N --format cypher|csv --out <file|dir> [--seed S]";

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function nonNegativeInteger(name: string, text: string | undefined, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) fail(`--${name} is required`);
    return fallback;
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    fail(`--${name} must be a non-negative integer, got "${text}"`);
  return value;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        patients: { type: "string" },
        format: { type: "string" },
        out: { type: "string" },
        seed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const patients = nonNegativeInteger("patients", values.patients);
  const seed = nonNegativeInteger("seed", values.seed, DEFAULT_SEED);
  const format = values.format;
  if (format !== "cypher" && format !== "csv") fail(`--format must be cypher or csv`);
  if (!values.out) fail("--out is required");
  const out = path.resolve(values.out);

  const bar = createProgressBar({ label: `Writing ${format}`, total: patients });
  const opts = { patients, seed, onProgress: (done: number) => bar.update(done) };
  if (format === "cypher") {
    const stream = createWriteStream(out, { encoding: "utf8" });
    const summary = await writeCypher(stream, opts);
    await endStream(stream);
    bar.finish();
    console.log(`Wrote ${summary.nodes} nodes and ${summary.edges} relationships to ${out}`);
    console.log(`Load with: cypher-shell -u neo4j -p <password> -f ${out}`);
  } else {
    const summary = await writeCsv(out, opts);
    bar.finish();
    console.log(`Wrote ${summary.nodes} nodes and ${summary.edges} relationships to ${out}`);
    // into a database that does not exist yet, with Neo4j stopped; the hub creates its constraint and
    // indexes when it starts on it (decision 0068)
    console.log(`Import with: neo4j-admin ${importArgs(out).join(" ")}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
