/**
 * The five-layer knowledge graph: labels per layer, naming conventions, and the records
 * a GraphStore holds. Framework-free; shared by both store adapters and the generator.
 */

export const LAYERS = ["l1", "l2", "l3", "l4", "l5"] as const;
export type Layer = (typeof LAYERS)[number];

/** Which layers each persona works with (the `persona` query parameter; usernames or role names). */
export const PERSONA_LAYERS: Record<string, readonly Layer[]> = {
  admin: LAYERS,
  operator: LAYERS,
  regulator: ["l1", "l2", "l4", "l5"],
  hdab: ["l1", "l2", "l4", "l5"],
  clinic: ["l1", "l2", "l3", "l4", "l5"],
  lmc: ["l1", "l2", "l3", "l4", "l5"],
  holder: ["l1", "l2", "l3", "l4", "l5"],
  researcher: ["l1", "l2", "l4", "l5"],
  user: ["l1", "l2", "l4", "l5"],
  trustcenter: ["l1", "l3", "l4"],
  trust: ["l1", "l3", "l4"],
  patient: ["l3", "l5"],
};

/** The spec's layer table, plus FHIR Consent in l3 (research consent records of patients). */
export const LAYER_LABELS: Record<Layer, readonly string[]> = {
  l1: ["Participant", "DataProduct", "Contract", "HDABApproval", "OdrlPolicy"],
  l2: ["Catalogue", "HealthDataset", "Distribution", "DataService"],
  l3: ["Patient", "Encounter", "Condition", "Observation", "MedicationRequest", "Consent"],
  l4: ["OMOPPerson", "ConditionOccurrence", "DrugExposure", "Measurement"],
  l5: ["SnomedConcept", "ICD10Code", "RxNormConcept", "LoincCode"],
};

export const LAYER_NAMES: Record<Layer, string> = {
  l1: "Marketplace",
  l2: "HealthDCAT-AP catalogue",
  l3: "FHIR R4 clinical records",
  l4: "OMOP CDM v5.4",
  l5: "Ontology and terminologies",
};

export const layerOfLabel = (label: string): Layer | undefined =>
  LAYERS.find((layer) => LAYER_LABELS[layer].includes(label));

/** the nodes of `layers` (all when omitted) by the count of each layer */
export const countIn = (counts: Record<string, number>, layers: readonly Layer[] = LAYERS) =>
  layers.reduce((s, l) => s + (counts[l] ?? 0), 0);

/** the layer of a kind's label; a label of no layer is refused */
export function layerOfKind(label: string): Layer {
  const layer = layerOfLabel(label);
  if (!layer) throw new Error(`label ${label} belongs to no layer`);
  return layer;
}

export const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;
export const UPPER_SNAKE_CASE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
export const CAMEL_CASE = /^[a-z][A-Za-z0-9]*$/;
/** letters of `s` in either case, as a pattern (JSON Schema's patterns have no flags) */
export const anyCase = (s: string) => s.replace(/[a-z]/gi, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);
/** a property key that may be written into a query (a JSON path, a Cypher property) */
export function safeKey(k: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(k)) throw new Error(`unsafe property key ${k}`);
  return k;
}

export type PropertyValue = string | number | boolean | null | string[] | number[];
export type Properties = Record<string, PropertyValue>;

/** A node as stored: id unique across the graph, exactly one label, its layer derived from the label. */
export interface NodeRecord {
  id: string;
  label: string;
  layer: Layer;
  properties: Properties;
}

/** A directed, typed relationship. `id` is unique across the graph. */
export interface EdgeRecord {
  id: string;
  source: string;
  target: string;
  type: string;
  properties?: Properties;
}

/** The spec's GraphNode / GraphEdge / GraphResponse shapes. */
export type GraphNode = NodeRecord;
export type GraphEdge = Omit<EdgeRecord, "properties">;
export interface GraphResponse {
  nodes: GraphNode[];
  edges: GraphEdge[];
  meta: {
    layer: string;
    /** nodes in the store within the requested layer scope */
    totalNodes: number;
    /** edges in the store whose both ends lie within the requested layer scope */
    totalEdges: number;
    returnedNodes: number;
    returnedEdges: number;
    limit: number;
    truncated: boolean;
  };
}

/** an answer of the graph routes: its nodes and edges, and the store's totals within its scope */
function graphAnswer(
  nodes: GraphNode[],
  edges: GraphEdge[],
  layer: string,
  [totalNodes, totalEdges]: [number, number],
  limit: number,
  truncated: boolean,
): GraphResponse {
  const [returnedNodes, returnedEdges] = [nodes.length, edges.length];
  const meta = { layer, totalNodes, totalEdges, returnedNodes, returnedEdges, limit, truncated };
  return { nodes, edges, meta };
}

/** a sample's answer: its nodes and edges, counted against the store's totals within `layers` */
export function sampleAnswer(
  nodes: GraphNode[],
  edges: GraphEdge[],
  scope: {
    layer: string;
    layers: readonly Layer[];
    counts: Record<string, number>;
    totalEdges: number;
    limit: number;
  },
): GraphResponse {
  const totalNodes = countIn(scope.counts, scope.layers);
  const totals: [number, number] = [totalNodes, scope.totalEdges];
  return graphAnswer(nodes, edges, scope.layer, totals, scope.limit, nodes.length < totalNodes);
}

/**
 * Nodes within `depth` hops of `start` (both directions), at most `limit`, every one reached returned
 * with the edges among them: one bounded read per hop (`hop`: at most `n` nodes joined to a node of
 * `frontier` and not in `seen`), then `edgesAmong` the nodes reached
 */
export async function expandFrom(
  start: GraphNode,
  depth: number,
  limit: number,
  hop: (frontier: string[], seen: string[], n: number) => Promise<GraphNode[]>,
  edgesAmong: (ids: string[]) => Promise<GraphEdge[]>,
): Promise<GraphResponse> {
  const seen = new Map<string, GraphNode>([[start.id, start]]);
  let frontier = [start.id];
  let truncated = false;
  for (let d = 0; d < depth && frontier.length && !truncated; d++) {
    // at most one node more than there is room for: that one says the answer is truncated
    const found = await hop(frontier, [...seen.keys()], limit - seen.size + 1);
    frontier = [];
    for (const n of found) {
      if (seen.has(n.id)) continue;
      if (seen.size >= limit) {
        truncated = true;
        break;
      }
      seen.set(n.id, n);
      frontier.push(n.id);
    }
  }
  const nodes = [...seen.values()];
  const edges = await edgesAmong([...seen.keys()]);
  return graphAnswer(nodes, edges, "expand", [nodes.length, edges.length], limit, truncated);
}

export interface Relationship {
  id: string;
  type: string;
  direction: "out" | "in";
  node: GraphNode;
}

/** Mutations a store applies atomically together with their audit entry. */
export type Mutation =
  | { op: "createNode"; node: NodeRecord }
  | { op: "updateNode"; id: string; properties: Properties }
  | { op: "deleteNode"; id: string }
  | { op: "createEdge"; edge: EdgeRecord }
  | { op: "deleteEdge"; id: string };
