import { z } from "zod";
import { httpUrl } from "../http/links";
import { organisationSlugOf, type SessionUser } from "../auth/user";
import { CATALOGUE_ID, type GraphNode, type GraphStore, type Mutation, type Properties } from "../graph";
import { callerKey, createKept, deepFrozen } from "../http/kept";
import { seesCount, viewerOf, type Viewer } from "../privacy";
import { badRequest, forbidden, notFound } from "../http/errors";
import { fieldErrorsOfIssues, invalidFields } from "../http/field-errors";

/** HealthDCAT-AP datasets (layer l2) — the spec's HealthDataset shape. */
export const healthDatasetSchema = z.object({
  // an identifier is taken as sent (never trimmed: the pattern refuses surrounding white space)
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "id may hold letters, digits, '.', '_', ':' and '-'"),
  // checked as sent, stored trimmed (the API document states the pattern and the length)
  title: z.string().max(500).regex(/\S/, "title must not be blank").trim(),
  description: z.string().max(10_000).optional(),
  publisher: z.string().max(500).optional(),
  license: httpUrl.optional(),
  datasetType: httpUrl.optional(),
  legalBasis: z.string().max(500).optional(),
  recordCount: z.number().int().min(0).optional(),
  personalData: z.boolean().optional(),
  sensitiveData: z.boolean().optional(),
  purpose: z.string().max(1000).optional(),
  populationCoverage: z.string().max(1000).optional(),
  conformsTo: z.array(httpUrl).max(50).optional(),
  keywords: z.array(z.string().max(100)).max(50).optional(),
  theme: z.string().max(200).optional(),
});
export type HealthDataset = z.infer<typeof healthDatasetSchema> & { holder?: string };

/** the holder recorded on a dataset the operator (a CONNECTOR_ADMIN of no organisation) published */
export const OPERATOR_HOLDER = "operator";
export const PUBLISHER_NOT_YOURS = "publisher is the publishing organisation: leave it out, or give your own";
export const WITHDRAW_NOT_YOURS =
  "Only the data holder that published this dataset, or an operator, may withdraw it";

const isOperator = (user: SessionUser) => user.roles.includes("CONNECTOR_ADMIN");
const DATASET_FIELDS = Object.keys(healthDatasetSchema.shape);

/** the dataset as `viewer` is shown it (none: as stored): its recordCount left out where `withheld` names it (privacy seesCount) */
export function toDataset(n: GraphNode, viewer?: Viewer, withheld: readonly string[] = []): HealthDataset {
  const out: Record<string, unknown> = { id: n.id };
  const counted = !viewer || seesCount(viewer, { id: n.id, ...n.properties }, withheld);
  for (const k of [...DATASET_FIELDS, "holder"]) {
    const v = n.properties[k];
    if (k !== "id" && v !== undefined && v !== null && (counted || k !== "recordCount")) out[k] = v;
  }
  return out as HealthDataset;
}

/** `withheld`: the datasets whose recordCount a caller bound by k is not shown (federated withheldCounts) */
export function createCatalogueService(
  graph: GraphStore,
  withheld: () => Promise<readonly string[]> = async () => [],
) {
  /** the datasets as `user` is shown them; the withheld list is read only when a count is not theirs to see */
  const shown = async (nodes: GraphNode[], user: SessionUser | null) => {
    const viewer = viewerOf(user);
    const bound = nodes.some((n) => !seesCount(viewer, { id: n.id, ...n.properties }, "all"));
    const hidden = bound ? await withheld() : [];
    return nodes.map((n) => toDataset(n, viewer, hidden));
  };
  // the datasets, read once per graph version and caller class: every catalogue page and the discovery and
  // application views start from the whole list (frozen: callers of a class share it)
  const kept = createKept<readonly HealthDataset[]>({ max: 64 });
  // no user: the k-bound view (the public landing page)
  const list = (user: SessionUser | null = null) =>
    kept({ caller: callerKey("organisation", user), versions: [graph.version()] }, async () =>
      deepFrozen(await shown(await graph.findNodes({ label: "HealthDataset", limit: 10_000 }), user)),
    );
  return {
    list,

    async get(id: string, user: SessionUser | null = null): Promise<HealthDataset | null> {
      const n = await graph.getNode(id);
      return n && n.label === "HealthDataset" ? (await shown([n], user))[0] : null;
    },

    async create(input: unknown, user: SessionUser): Promise<HealthDataset> {
      const body = (typeof input === "object" && input) || {};
      const missing = (["id", "title"] as const).filter((k) => {
        const v = (body as Record<string, unknown>)[k];
        return typeof v !== "string" || !v.trim();
      });
      if (missing.length) {
        throw invalidFields(
          "id and title are required",
          missing.map((path) => ({ path, message: "Required" })),
        );
      }
      const parsed = healthDatasetSchema.safeParse(body);
      if (!parsed.success) {
        const [first, ...rest] = fieldErrorsOfIssues(parsed.error.issues);
        throw invalidFields(`${first.path}: ${first.message}`, [first, ...rest]);
      }
      const ds = parsed.data;
      // the publisher is the caller's organisation, never a free text naming another (issue 34)
      if (ds.publisher !== undefined && ds.publisher !== user.organisation)
        throw invalidFields(PUBLISHER_NOT_YOURS, [
          { path: "publisher", message: `must be ${user.organisation} or left out` },
        ]);
      // who holds what the caller publishes: their organisation, or the operator
      const holder = organisationSlugOf(user) ?? (isOperator(user) ? OPERATOR_HOLDER : undefined);
      if (!holder) throw forbidden("Only a data holder's organisation or an operator may publish a dataset");
      if (await graph.getNode(ds.id))
        throw invalidFields(
          `A dataset or node with id ${ds.id} already exists`,
          [{ path: "id", message: "A dataset or node with this id already exists" }],
          409,
        );
      const properties: Properties = {
        ...(Object.fromEntries(
          Object.entries(ds).filter(([k, v]) => k !== "id" && v !== undefined),
        ) as Properties),
        publisher: user.organisation,
        recordCount: ds.recordCount ?? 0,
        holder,
        createdBy: user.username,
        createdAt: new Date().toISOString(),
      };
      const node = { id: ds.id, label: "HealthDataset", layer: "l2" as const, properties };
      const mutations: Mutation[] = [{ op: "createNode", node }];
      if (await graph.getNode(CATALOGUE_ID)) {
        const edge = { id: `${CATALOGUE_ID}:CONTAINS:${ds.id}`, source: CATALOGUE_ID, target: ds.id };
        mutations.push({ op: "createEdge", edge: { ...edge, type: "CONTAINS" } });
      }
      await graph.mutate(mutations, {
        action: "catalogue.create",
        actor: user.username,
        target: ds.id,
        kind: "catalogue",
      });
      return toDataset(node);
    },

    async remove(id: string | null, user: SessionUser): Promise<void> {
      if (!id || !id.trim()) throw badRequest("id query parameter is required");
      const n = await graph.getNode(id);
      if (!n || n.label !== "HealthDataset") throw notFound(`Dataset ${id} not found`);
      // a dataset without a recorded holder (published before holders were recorded) is the operator's
      const holder = typeof n.properties.holder === "string" ? n.properties.holder : OPERATOR_HOLDER;
      if (!isOperator(user) && holder !== organisationSlugOf(user)) throw forbidden(WITHDRAW_NOT_YOURS);
      await graph.mutate([{ op: "deleteNode", id }], {
        action: "catalogue.delete",
        actor: user.username,
        target: id,
        kind: "catalogue",
      });
    },
  };
}
export type CatalogueService = ReturnType<typeof createCatalogueService>;
