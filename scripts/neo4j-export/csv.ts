/**
 * Streams the synthetic graph as CSV files for `neo4j-admin database import full`:
 * one `nodes-<Label>.csv` per label with the header `id:ID,:LABEL,layer,seq:long,<key>:<type>,...` and
 * one `relationships.csv` with `:START_ID,:END_ID,:TYPE,id`. Every node's labels are `GraphNode` and its
 * kind's, with `layer` and `seq` (its place in the export): what the hub's Neo4j adapter reads, whose
 * constraint and indexes the hub creates when it starts on the imported database (decision 0046).
 *
 * A header must name every column and its type before the first row, so the writer runs the
 * (deterministic, cheap) generator twice: once to learn each label's property keys and types
 * (a number column is `long` when every value is an integer, `double` otherwise), once to write.
 */
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import path from "node:path";
import { CAMEL_CASE, type NodeRecord, type PropertyValue } from "../../server/graph/model";
import { generateGraph } from "../../server/graph/synthetic/generate";
import { groupBy } from "./grouping";
import { type ExportOptions, type ExportSummary, endStream, writeText } from "./output";

type ColumnType = "string" | "long" | "double" | "boolean" | "string[]" | "long[]" | "double[]";

/** the array separator of neo4j-admin import (its default) */
const ARRAY_DELIMITER = ";";

export const RELATIONSHIPS_FILE = "relationships.csv";
export const RELATIONSHIPS_HEADER = ":START_ID,:END_ID,:TYPE,id";

export const nodesFile = (label: string) => `nodes-${label}.csv`;

function valueType(value: Exclude<PropertyValue, null>): ColumnType {
  if (Array.isArray(value)) {
    const items = value as (string | number)[];
    if (items.every((v) => typeof v === "number"))
      return items.every(Number.isInteger) ? "long[]" : "double[]";
    return "string[]";
  }
  if (typeof value === "number") return Number.isInteger(value) ? "long" : "double";
  return typeof value === "boolean" ? "boolean" : "string";
}

/** the wider of two column types seen for one key */
function widen(a: ColumnType | null, b: ColumnType, key: string): ColumnType {
  if (a === null || a === b) return b;
  const pair = new Set([a, b]);
  if (pair.has("long") && pair.has("double")) return "double";
  if (pair.has("long[]") && pair.has("double[]")) return "double[]";
  throw new Error(`property ${key} holds both ${a} and ${b} values`);
}

/** per label: its property keys in first-seen order, with their column types (null: only nulls seen) */
function collectSchema(opts: ExportOptions): Map<string, Map<string, ColumnType | null>> {
  const schema = new Map<string, Map<string, ColumnType | null>>();
  for (const batch of generateGraph(opts)) {
    for (const n of batch.nodes) {
      let columns = schema.get(n.label);
      if (!columns) schema.set(n.label, (columns = new Map()));
      for (const [key, value] of Object.entries(n.properties)) {
        if (!CAMEL_CASE.test(key)) throw new Error(`not a property key: ${key}`);
        const seen = columns.get(key) ?? null;
        columns.set(key, value === null ? seen : widen(seen, valueType(value), key));
      }
    }
  }
  return schema;
}

function csvText(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

function csvField(value: PropertyValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) {
    const items = (value as (string | number)[]).map(String);
    if (items.some((v) => v.includes(ARRAY_DELIMITER)))
      throw new Error(`array item contains "${ARRAY_DELIMITER}"`);
    return csvText(items.join(ARRAY_DELIMITER));
  }
  return typeof value === "string" ? csvText(value) : String(value);
}

/** the `:LABEL` field: neo4j-admin's array delimiter separates the labels */
const labelsField = (label: string) => `GraphNode${ARRAY_DELIMITER}${label}`;

function nodeLine(n: NodeRecord, seq: number, keys: string[]): string {
  return (
    [
      csvText(n.id),
      labelsField(n.label),
      n.layer,
      String(seq),
      ...keys.map((k) => csvField(n.properties[k] ?? null)),
    ].join(",") + "\n"
  );
}

export interface CsvSummary extends ExportSummary {
  /** file names written in the directory, for `--nodes=` */
  nodeFiles: string[];
  /** file names written in the directory, for `--relationships=` */
  relationshipFiles: string[];
}

export async function writeCsv(dir: string, opts: ExportOptions): Promise<CsvSummary> {
  const schema = collectSchema({ ...opts, onProgress: undefined });
  mkdirSync(dir, { recursive: true });
  const open = (file: string) => createWriteStream(path.join(dir, file), { encoding: "utf8" });

  const nodeFiles = new Map<string, { stream: WriteStream; keys: string[] }>();
  for (const [label, columns] of schema) {
    const stream = open(nodesFile(label));
    const keys = [...columns.keys()];
    await writeText(
      stream,
      ["id:ID", ":LABEL", "layer", "seq:long", ...keys.map((k) => `${k}:${columns.get(k) ?? "string"}`)].join(
        ",",
      ) + "\n",
    );
    nodeFiles.set(label, { stream, keys });
  }
  const relationships = open(RELATIONSHIPS_FILE);
  await writeText(relationships, `${RELATIONSHIPS_HEADER}\n`);

  const summary: CsvSummary = {
    nodes: 0,
    edges: 0,
    nodeFiles: [...schema.keys()].map(nodesFile),
    relationshipFiles: [RELATIONSHIPS_FILE],
  };
  try {
    for (const batch of generateGraph(opts)) {
      const numbered = batch.nodes.map((n, i) => ({ n, seq: summary.nodes + 1 + i }));
      for (const [label, group] of groupBy(numbered, (x) => x.n.label)) {
        const file = nodeFiles.get(label);
        if (!file) throw new Error(`label ${label} was not in the first pass`);
        await writeText(file.stream, group.map((x) => nodeLine(x.n, x.seq, file.keys)).join(""));
      }
      const lines = batch.edges.map(
        (e) => `${csvText(e.source)},${csvText(e.target)},${e.type},${csvText(e.id)}\n`,
      );
      await writeText(relationships, lines.join(""));
      summary.nodes += batch.nodes.length;
      summary.edges += batch.edges.length;
      opts.onProgress?.(batch.patientsDone, opts.patients);
    }
  } finally {
    await Promise.all([...[...nodeFiles.values()].map((f) => endStream(f.stream)), endStream(relationships)]);
  }
  return summary;
}
