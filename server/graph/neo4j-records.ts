import neo4j from "neo4j-driver";
import { PASCAL_CASE, UPPER_SNAKE_CASE, type GraphNode, type Layer, type Properties } from "./model";

/** What the Neo4j adapter (neo4j-store.ts) reads and writes: checked names, plain values, nodes. */

/** the bulk load's deadline per batch: seeding is start-up work, not a request */
export const bulkTimeout = (timeoutMs: number) => Math.max(60_000, 12 * timeoutMs);

export const safeLabel = (l: string) => {
  if (!PASCAL_CASE.test(l)) throw new Error(`unsafe label ${l}`);
  return l;
};
export const safeType = (t: string) => {
  if (!UPPER_SNAKE_CASE.test(t)) throw new Error(`unsafe relationship type ${t}`);
  return t;
};
export const SAFE_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

export function toPlain(v: unknown): unknown {
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (Array.isArray(v)) return v.map(toPlain);
  return v;
}

export function nodeFrom(rec: {
  id: string;
  label: string;
  layer: string;
  props: Record<string, unknown>;
}): GraphNode {
  const properties: Properties = {};
  for (const [k, v] of Object.entries(rec.props)) {
    if (k === "id" || k === "layer" || k === "seq") continue;
    properties[k] = toPlain(v) as Properties[string];
  }
  return { id: rec.id, label: rec.label, layer: rec.layer as Layer, properties };
}
