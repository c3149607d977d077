import type { z } from "zod";
import { badRequest, notFound } from "../http/errors";
import { createKept, deepFrozen, EVERYONE, type KeptKey } from "../http/kept";
import {
  CAMEL_CASE,
  LAYER_LABELS,
  LAYERS,
  PASCAL_CASE,
  PERSONA_LAYERS,
  UPPER_SNAKE_CASE,
  layerOfLabel,
  type GraphNode,
  type GraphResponse,
  type Layer,
  type Relationship,
} from "./model";
import type { validationAnswer } from "./contract";
import type { GraphStore } from "./store";
import { randomBytes } from "node:crypto";
import { createMinimiser, patientOfId, patientsShown, viewerOf, type Viewer } from "../privacy";
import type { SessionUser } from "../auth/user";
import type { AccessLog } from "../audit/access-log";

/**
 * Graph queries for the API and the explorer: layer and persona scoping, the limit honoured,
 * what the caller may see of people applied (server/privacy: every answer goes through the
 * viewer's redactor), and answers kept per graph version and visibility class (server/http/kept;
 * any write moves the version).
 */

export { EXPAND_DEPTH_DEFAULT, GRAPH_LIMIT_DEFAULT, GRAPH_LIMIT_MAX } from "./contract";
export const EXPAND_NODE_LIMIT = 1000;
export const NODE_RELATIONSHIP_LIMIT = 200;

export function parseLayer(raw: string | null): { label: string; layers: readonly Layer[] } {
  const v = raw ?? "all";
  if (v === "all") return { label: "all", layers: LAYERS };
  if ((LAYERS as readonly string[]).includes(v)) return { label: v, layers: [v as Layer] };
  throw badRequest("layer must be one of all, l1, l2, l3, l4, l5");
}

export function personaLayers(raw: string | null): readonly Layer[] | null {
  if (!raw) return null;
  const key = raw.toLowerCase().replace(/^patient\d+$/, "patient");
  const layers = PERSONA_LAYERS[key];
  if (!layers) throw badRequest(`persona must be one of ${Object.keys(PERSONA_LAYERS).join(", ")}`);
  return layers;
}

/** GET /api/graph/validate's answer */
export type GraphValidation = z.infer<typeof validationAnswer>;

/** who reads, for the access log: a sample or a neighbourhood that shows identified records is a look at each */
export interface GraphReader {
  viewer: Viewer;
  /** the signed-in user's name; none (the offline demo's recording) logs nothing */
  actor?: string;
}

/** a signed-in user as a reader of the graph: what it may see, and its name for the access log */
export const readerOf = (user: SessionUser | null | undefined): GraphReader => ({
  viewer: viewerOf(user),
  ...(user ? { actor: user.username } : {}),
});

/**
 * `pseudonymSecret`: the server secret pseudonyms are derived from (kept in DATA_DIR), random per process
 * when absent; `accessLog`: where a look at identified records goes (issue 34), none for a service built alone
 */
export function createGraphService(
  store: GraphStore,
  opts: { pseudonymSecret?: string; accessLog?: Pick<AccessLog, "read" | "readAll"> } = {},
) {
  const minimiser = createMinimiser(store, opts.pseudonymSecret ?? randomBytes(32).toString("base64url"));
  // answers per graph version and visibility class (server/http/kept), shared, so frozen
  const kept = createKept<GraphResponse>({ max: 256 });
  const keptNodes = createKept<NodeAnswer>({ max: 1024 });
  // whether a stored id is a node, once per graph version (node and expand answers check it first)
  const existence = createKept<boolean>({ max: 4096 });
  const exists = (stored: string) =>
    existence(
      { caller: EVERYONE, versions: [store.version()], args: [stored] },
      async () => (await store.getNode(stored)) !== null,
    );
  const keptValidation = createKept<GraphValidation>({ max: 1 });
  // the patients each kept answer shows with identities (its `nodes`), less the viewer's own record (never logged)
  const shownIn = new WeakMap<object, readonly string[]>();
  /** `build`'s answer and the nodes it shows, kept by `args` per graph version and viewer, its looks on record as `action` (none: at once) */
  const keptLook = async <T extends object>(
    cache: (key: KeptKey, build: () => Promise<T>) => Promise<T>,
    reader: GraphReader,
    action: string,
    args: unknown[],
    build: () => Promise<[T, readonly GraphNode[]]>,
  ) => {
    const { viewer, actor } = reader;
    const answer = await cache({ caller: viewer.key, versions: [store.version()], args }, async () => {
      const [built, nodes] = await build();
      shownIn.set(built, Object.freeze(patientsShown(nodes).filter((id) => id !== viewer.patientId)));
      return deepFrozen(built);
    });
    const patientIds = shownIn.get(answer);
    if (actor && patientIds?.length) await opts.accessLog?.readAll({ actor, action, patientIds });
    return answer;
  };

  /**
   * The 404 of an id the viewer may not see (another holder's record, or an identified id asked by a
   * role shown pseudonyms), as of an unknown one; a look refused at a patient's record that exists is
   * on that patient's record, as the patient routes note theirs. Not waited for: the wait for the batch
   * would tell by the answer's time that the record exists, and a refusal shows nothing.
   */
  const refused = async (id: string, reader: GraphReader, action: string) => {
    const patientId = patientOfId(id);
    if (patientId && reader.actor && opts.accessLog && (await exists(id)))
      void opts.accessLog.read({
        actor: reader.actor,
        action,
        patientId,
        outcome: "refused: not shown to this caller",
      });
    return notFound(`Node ${id} not found`);
  };
  /** the stored id behind the caller's `id` and the viewer's redactor; 404 for an id it may not see or that names nothing */
  const lookAt = async (id: string | null, reader: GraphReader, action: string) => {
    if (!id) throw badRequest("id query parameter is required");
    const redact = await minimiser.redactor(reader.viewer);
    const stored = redact.resolve(id);
    if (!stored) throw await refused(id, reader, action);
    if (!(await exists(stored))) throw notFound(`Node ${id} not found`);
    return { redact, stored };
  };

  return {
    /** what a viewer may see of person-level records (server/privacy), for readers outside the graph (the audit log) */
    redactor: (viewer: Viewer) => minimiser.redactor(viewer),

    /**
     * GET /api/graph: kept per graph version and visibility class, shared, so frozen (copy to change);
     * each identified record it shows is a look on record ("graph.read")
     */
    async graph(
      q: { layer: string | null; persona: string | null; limit: number },
      reader: GraphReader,
    ): Promise<GraphResponse> {
      const { label, layers } = parseLayer(q.layer);
      const personal = personaLayers(q.persona);
      const scope = personal ? layers.filter((l) => personal.includes(l)) : layers;
      return keptLook(kept, reader, "graph.read", ["graph", scope, q.limit, label], async () => {
        const redact = await minimiser.redactor(reader.viewer);
        const g = redact.graph(await store.sampleGraph(scope, q.limit, label));
        return [g, g.nodes];
      });
    },

    /** GET /api/graph/expand: kept, frozen and on record as graph() ("graph.expand.read") */
    async expand(id: string | null, depth: number, reader: GraphReader): Promise<GraphResponse> {
      const { redact, stored } = await lookAt(id, reader, "graph.expand.read");
      return keptLook(kept, reader, "graph.expand.read", ["expand", stored, depth], async () => {
        const g = redact.graph((await store.expand(stored, depth, EXPAND_NODE_LIMIT))!);
        return [g, g.nodes];
      });
    },

    /**
     * GET /api/graph/node and the node inspector: kept, frozen and on record as graph()
     * ("graph.node.read"): the node and its neighbours, each of a patient's record shown with identities
     */
    async node(id: string | null, reader: GraphReader): Promise<NodeAnswer> {
      const { redact, stored } = await lookAt(id, reader, "graph.node.read");
      return keptLook(keptNodes, reader, "graph.node.read", [stored], async () => {
        const node = await store.getNode(stored);
        if (!node) throw notFound(`Node ${id} not found`);
        const relationships = (await store.relationships({ id: stored, limit: NODE_RELATIONSHIP_LIMIT })).map(
          redact.relationship,
        );
        const shown = redact.node(node);
        const nodes = [shown, ...relationships.map((r) => r.node)];
        return [{ ...shown, relationships, relationshipCount: relationships.length }, nodes];
      });
    },

    /** GET /api/graph/validate: once per graph version */
    validate(): Promise<GraphValidation> {
      return keptValidation({ caller: EVERYONE, versions: [store.version()] }, validate);
    },
  };

  async function validate(): Promise<GraphValidation> {
    const c = await store.counts();
    const violations: GraphValidation["violations"] = [];
    type Kind = GraphValidation["violations"][number]["kind"];
    const flag = (kind: Kind, subject: string, detail: string) => violations.push({ kind, subject, detail });
    const layers = Object.fromEntries(
      LAYERS.map((l) => [l, { labels: {} as Record<string, number>, nodes: 0 }]),
    ) as GraphValidation["layers"];
    for (const [label, n] of Object.entries(c.nodesByLabel)) {
      if (!PASCAL_CASE.test(label)) flag("label", label, "label is not PascalCase");
      const layer = layerOfLabel(label);
      if (!layer) {
        flag("unknownLabel", label, "label belongs to no layer of the layer table");
        continue;
      }
      layers[layer].labels[label] = n;
      layers[layer].nodes += n;
    }
    for (const layer of LAYERS) {
      for (const label of LAYER_LABELS[layer]) layers[layer].labels[label] ??= 0;
      if (layers[layer].nodes === 0) flag("emptyLayer", layer, `layer ${layer} has no nodes`);
    }
    for (const type of Object.keys(c.edgesByType))
      if (!UPPER_SNAKE_CASE.test(type))
        flag("relationshipType", type, "relationship type is not UPPER_SNAKE_CASE");
    for (const [label, keys] of Object.entries(c.propertyKeysByLabel))
      for (const k of keys)
        if (!CAMEL_CASE.test(k)) flag("propertyKey", `${label}.${k}`, "property key is not camelCase");
    if (c.danglingEdges > 0)
      flag("danglingEdge", "edges", `${c.danglingEdges} relationships point at missing nodes`);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    const none = (kind: Kind) => !violations.some((v) => v.kind === kind);
    const dangling = c.danglingEdges;
    return {
      valid: violations.length === 0,
      checkedAt: new Date().toISOString(),
      layers,
      relationshipTypes: c.edgesByType,
      totals: { nodes: sum(c.nodesByLabel), edges: sum(c.edgesByType) },
      constraints: [
        { name: "unique node id", ok: c.duplicateIds === 0, detail: `${c.duplicateIds} duplicate ids` },
        { name: "relationships connect existing nodes", ok: dangling === 0, detail: `${dangling} dangling` },
        {
          name: "every label belongs to a layer",
          ok: none("unknownLabel"),
          detail: "layer table of the spec",
        },
        { name: "labels PascalCase", ok: none("label"), detail: "" },
        { name: "relationship types UPPER_SNAKE_CASE", ok: none("relationshipType"), detail: "" },
        { name: "properties camelCase", ok: none("propertyKey"), detail: "sampled per label" },
        { name: "every layer populated", ok: none("emptyLayer"), detail: "" },
      ],
      violations,
    };
  }
}
export type GraphService = ReturnType<typeof createGraphService>;

type NodeAnswer = GraphNode & { relationships: Relationship[]; relationshipCount: number };
