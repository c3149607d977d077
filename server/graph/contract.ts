import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, intQuery, ok, requiredText } from "../http/contract-fields";
import { anyCase, LAYERS, PERSONA_LAYERS } from "./model";

export const GRAPH_LIMIT_DEFAULT = 1000;
export const GRAPH_LIMIT_MAX = 5000;
export const EXPAND_DEPTH_DEFAULT = 1;
export const EXPAND_DEPTH_MAX = 4;

/** The declarations of the graph routes (server/http/contract.ts). */

const ID_REQUIRED = "id query parameter is required";
/** the persona names `personaLayers` (service.ts) takes, in any case, as one pattern JSON Schema can state */
const PERSONA_NAMES = Object.keys(PERSONA_LAYERS);
const PERSONA_PATTERN = new RegExp(
  `^(?:${PERSONA_NAMES.map((n) => anyCase(n) + (n === "patient" ? "\\d*" : "")).join("|")})?$`,
);
/** the answers: what the graph routes send (model.ts GraphResponse, GraphNode, Relationship; service.ts GraphValidation) */
const propertyValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string(), z.number()])),
]);
export const graphNodeAnswer = z.object({
  id: z.string(),
  label: z.string(),
  layer: z.enum(LAYERS),
  properties: z.record(z.string(), propertyValue),
});
const graphEdgeAnswer = z.object({
  id: z.string(),
  source: z.string(),
  target: z.string(),
  type: z.string(),
});
const count = z.number().int().min(0);
export const graphAnswer = z.object({
  nodes: z.array(graphNodeAnswer),
  edges: z.array(graphEdgeAnswer),
  meta: z.object({
    layer: z.string().describe('the layer asked for, "all", or "expand"'),
    totalNodes: count.describe("nodes in the store within the layer scope"),
    totalEdges: count.describe("edges in the store with both ends within the layer scope"),
    returnedNodes: count,
    returnedEdges: count,
    limit: count,
    truncated: z.boolean(),
  }),
});
export const relationshipAnswer = z.object({
  id: z.string(),
  type: z.string(),
  direction: z.enum(["out", "in"]),
  node: graphNodeAnswer,
});
export const nodeAnswer = graphNodeAnswer.extend({
  relationships: z.array(relationshipAnswer),
  relationshipCount: count,
});
export const validationAnswer = z.object({
  valid: z.boolean(),
  checkedAt: z.string().describe("ISO 8601 time"),
  layers: z.record(z.enum(LAYERS), z.object({ labels: z.record(z.string(), count), nodes: count })),
  relationshipTypes: z.record(z.string(), count),
  totals: z.object({ nodes: count, edges: count }),
  constraints: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })),
  violations: z.array(
    z.object({
      kind: z.enum([
        "label",
        "relationshipType",
        "propertyKey",
        "unknownLabel",
        "emptyLayer",
        "danglingEdge",
      ]),
      subject: z.string(),
      detail: z.string(),
    }),
  ),
});

export const graphQuery = z.object({
  layer: z
    .enum(["all", ...LAYERS], { error: `layer must be one of ${["all", ...LAYERS].join(", ")}` })
    .optional()
    .describe("default all"),
  persona: z
    .string()
    .regex(PERSONA_PATTERN, `persona must be one of ${PERSONA_NAMES.join(", ")}`)
    .optional()
    .describe(
      `the persona whose layers to show: one of ${PERSONA_NAMES.join(", ")}, in any case; patient1, patient2 … count as patient; empty for none`,
    ),
  limit: intQuery("limit", 1, GRAPH_LIMIT_MAX, GRAPH_LIMIT_DEFAULT),
});
export const expandQuery = z.object({
  id: requiredText(ID_REQUIRED),
  depth: intQuery("depth", 1, EXPAND_DEPTH_MAX, EXPAND_DEPTH_DEFAULT),
});
export const nodeQuery = z.object({ id: requiredText(ID_REQUIRED) });

export const graphContract: Contracts = {
  "GET /api/graph": {
    query: graphQuery,
    answers: { 200: ok(graphAnswer, "GraphResponse") },
  },
  "GET /api/graph/expand": {
    query: expandQuery,
    answers: { 200: ok(graphAnswer, "GraphResponse"), 404: fails("No such node") },
  },
  "GET /api/graph/node": {
    query: nodeQuery,
    answers: { 200: ok(nodeAnswer, "GraphNode with relationships"), 404: fails("No such node") },
  },
  "GET /api/graph/validate": {
    answers: { 200: ok(validationAnswer, "The graph checked against its schema") },
  },
};
