import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, has, intQuery, ok, optionalText, requiredText } from "../http/contract-fields";
import { EXPAND_DEPTH_DEFAULT, EXPAND_DEPTH_MAX, GRAPH_LIMIT_DEFAULT, GRAPH_LIMIT_MAX } from "./service";
import { LAYERS } from "./model";

/** The declarations of the graph routes (server/http/contract.ts). */

const ID_REQUIRED = "id query parameter is required";
const graph = has("nodes", "edges");

export const graphQuery = z.object({
  layer: z
    .enum(["all", ...LAYERS], { error: `layer must be one of ${["all", ...LAYERS].join(", ")}` })
    .optional()
    .describe("default all"),
  persona: optionalText("the persona whose layers to show"),
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
    answers: { 200: ok(graph, "GraphResponse") },
  },
  "GET /api/graph/expand": {
    query: expandQuery,
    answers: { 200: ok(graph, "GraphResponse"), 404: fails("No such node") },
  },
  "GET /api/graph/node": {
    query: nodeQuery,
    answers: { 200: ok(has("id", "label"), "GraphNode with relationships"), 404: fails("No such node") },
  },
  "GET /api/graph/validate": { answers: { 200: ok(has("valid", "constraints")) } },
};
