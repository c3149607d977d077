/**
 * Streams the synthetic graph as a Cypher script for Neo4j 5 (cypher-shell -f): first the schema the
 * hub's Neo4j adapter uses (neo4j-records.ts SCHEMA: unique `id` on `:GraphNode`, the `layer`/`seq`
 * index), then one `UNWIND [...] AS row CREATE` statement per label (nodes) or per type
 * (relationships) and chunk of rows. Every node carries `:GraphNode` and its kind's label, `layer`
 * and `seq` (its place in the export, the adapter's sampling order), so the hub serves the loaded
 * graph as it is (decision 0046). Relationships MATCH their endpoints on `:GraphNode` by id.
 */
import { type Writable } from "node:stream";
import {
  CAMEL_CASE,
  PASCAL_CASE,
  UPPER_SNAKE_CASE,
  layerOfLabel,
  type EdgeRecord,
  type NodeRecord,
  type PropertyValue,
} from "../../server/graph/model";
import { SCHEMA } from "../../server/graph/neo4j-records";
import { DEFAULT_SEED, generateGraph } from "../../server/graph/synthetic/generate";
import { chunks, groupBy } from "./grouping";
import { type ExportOptions, type ExportSummary, writeText } from "./output";

const ROWS_PER_STATEMENT = 500;

function label(name: string): string {
  if (!PASCAL_CASE.test(name) || !layerOfLabel(name)) throw new Error(`not a graph label: ${name}`);
  return `\`${name}\``;
}

function relationshipType(name: string): string {
  if (!UPPER_SNAKE_CASE.test(name)) throw new Error(`not a relationship type: ${name}`);
  return `\`${name}\``;
}

/** a Cypher literal; JSON string escapes are valid Cypher string escapes */
function cypherValue(value: PropertyValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map((v) => cypherValue(v)).join(", ")}]`;
  if (typeof value === "number" && !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return JSON.stringify(value);
}

function cypherMap(entries: [string, PropertyValue][]): string {
  return `{${entries
    .map(([key, value]) => {
      if (!CAMEL_CASE.test(key)) throw new Error(`not a property key: ${key}`);
      return `${key}: ${cypherValue(value)}`;
    })
    .join(", ")}}`;
}

function nodeRow(n: NodeRecord, seq: number): string {
  const props = Object.entries(n.properties).filter(([, v]) => v !== null);
  return cypherMap([["id", n.id], ["layer", n.layer], ["seq", seq], ...props]);
}

/** `nodes` numbered from `seq` on, in the order given */
function nodeStatements(nodes: NodeRecord[], seq: number): string[] {
  const statements: string[] = [];
  const numbered = nodes.map((n, i) => ({ n, seq: seq + i }));
  for (const [name, group] of groupBy(numbered, (x) => x.n.label)) {
    for (const chunk of chunks(group, ROWS_PER_STATEMENT)) {
      statements.push(
        `UNWIND [${chunk.map((x) => nodeRow(x.n, x.seq)).join(",\n")}] AS row\nCREATE (n:GraphNode:${label(name)}) SET n = row;`,
      );
    }
  }
  return statements;
}

function edgeStatements(edges: EdgeRecord[]): string[] {
  const statements: string[] = [];
  for (const [type, group] of groupBy(edges, (e) => e.type)) {
    for (const chunk of chunks(group, ROWS_PER_STATEMENT)) {
      const rows = chunk.map((e) =>
        cypherMap([
          ["id", e.id],
          ["source", e.source],
          ["target", e.target],
        ]),
      );
      statements.push(
        `UNWIND [${rows.join(",\n")}] AS row\n` +
          `MATCH (a:GraphNode {id: row.source}) MATCH (b:GraphNode {id: row.target})\n` +
          `CREATE (a)-[r:${relationshipType(type)}]->(b) SET r.id = row.id;`,
      );
    }
  }
  return statements;
}

export async function writeCypher(out: Writable, opts: ExportOptions): Promise<ExportSummary> {
  const summary: ExportSummary = { nodes: 0, edges: 0 };
  await writeText(
    out,
    `// Health Dataspace Hub synthetic knowledge graph: ${opts.patients} patients, seed ${opts.seed ?? DEFAULT_SEED}\n`,
  );
  await writeText(
    out,
    `// Load with: cypher-shell -f <this file>\n\n${SCHEMA.map((s) => `${s};`).join("\n")}\n\n`,
  );

  for (const batch of generateGraph(opts)) {
    const seq = summary.nodes + 1;
    for (const statement of [...nodeStatements(batch.nodes, seq), ...edgeStatements(batch.edges)]) {
      await writeText(out, `${statement}\n`);
    }
    summary.nodes += batch.nodes.length;
    summary.edges += batch.edges.length;
    opts.onProgress?.(batch.patientsDone, opts.patients);
  }
  return summary;
}
