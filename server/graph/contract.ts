import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, has, intQuery, ok, requiredText } from "../http/contract-fields";
import {
  EXPAND_DEPTH_DEFAULT,
  EXPAND_DEPTH_MAX,
  GRAPH_LIMIT_DEFAULT,
  GRAPH_LIMIT_MAX,
  PERSONA_LAYERS,
} from "./service";
import { LAYERS } from "./model";

/** The declarations of the graph routes (server/http/contract.ts). */

const ID_REQUIRED = "id query parameter is required";
/** the persona names `personaLayers` (service.ts) takes, in any case, as one pattern JSON Schema can state */
const PERSONA_NAMES = Object.keys(PERSONA_LAYERS);
const anyCase = (name: string) =>
  [...name].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join("");
const PERSONA_PATTERN = new RegExp(
  `^(?:${PERSONA_NAMES.map((n) => anyCase(n) + (n === "patient" ? "\\d*" : "")).join("|")})?$`,
);
const graph = has("nodes", "edges");

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
