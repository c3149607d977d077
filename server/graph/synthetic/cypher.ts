/**
 * Streams the synthetic graph as a Cypher script for Neo4j 5 (cypher-shell -f): first a
 * uniqueness constraint on `id` for every label, then one `UNWIND [...] AS row CREATE` statement
 * per label (nodes) or per type and endpoint labels (relationships) and chunk of rows.
 *
 * Relationship statements MATCH their endpoints by label and id, so the writer needs each
 * endpoint's label: it remembers the shared nodes (the batches before the first patient:
 * ontology, marketplace, catalogue) and the labels of the current batch; a patient batch only
 * refers to its own nodes and to shared ones.
 */
import { type Writable } from "node:stream";
import {
  CAMEL_CASE,
  LAYER_LABELS,
  LAYERS,
  PASCAL_CASE,
  UPPER_SNAKE_CASE,
  layerOfLabel,
  type EdgeRecord,
  type NodeRecord,
  type PropertyValue,
} from "../model";
import { DEFAULT_SEED, generateGraph } from "./generate";
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

function nodeRow(n: NodeRecord): string {
  const props = Object.entries(n.properties).filter(([, v]) => v !== null);
  return cypherMap([["id", n.id], ["layer", n.layer], ...props]);
}

function constraintStatements(): string[] {
  return LAYERS.flatMap((layer) =>
    LAYER_LABELS[layer].map(
      (name) =>
        `CREATE CONSTRAINT ${name.toLowerCase()}_id IF NOT EXISTS FOR (n:${label(name)}) REQUIRE n.id IS UNIQUE;`,
    ),
  );
}

function nodeStatements(nodes: NodeRecord[]): string[] {
  const statements: string[] = [];
  for (const [name, group] of groupBy(nodes, (n) => n.label)) {
    for (const chunk of chunks(group, ROWS_PER_STATEMENT)) {
      statements.push(
        `UNWIND [${chunk.map(nodeRow).join(",\n")}] AS row\nCREATE (n:${label(name)}) SET n = row;`,
      );
    }
  }
  return statements;
}

function edgeStatements(edges: EdgeRecord[], labelOf: (id: string) => string): string[] {
  const statements: string[] = [];
  const groups = groupBy(edges, (e) => `${e.type} ${labelOf(e.source)} ${labelOf(e.target)}`);
  for (const [key, group] of groups) {
    const [type, from, to] = key.split(" ");
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
          `MATCH (a:${label(from)} {id: row.source}) MATCH (b:${label(to)} {id: row.target})\n` +
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
    `// Load with: cypher-shell -f <this file>\n\n${constraintStatements().join("\n")}\n\n`,
  );

  const shared = new Map<string, string>();
  for (const batch of generateGraph(opts)) {
    const local = batch.patientsDone === 0 ? shared : new Map<string, string>();
    for (const n of batch.nodes) local.set(n.id, n.label);
    const labelOf = (id: string) => {
      const found = local.get(id) ?? shared.get(id);
      if (!found) throw new Error(`relationship endpoint ${id} is in no earlier batch`);
      return found;
    };
    for (const statement of [...nodeStatements(batch.nodes), ...edgeStatements(batch.edges, labelOf)]) {
      await writeText(out, `${statement}\n`);
    }
    summary.nodes += batch.nodes.length;
    summary.edges += batch.edges.length;
    opts.onProgress?.(batch.patientsDone, opts.patients);
  }
  return summary;
}
