import { findAll, linked, type GraphNode, type GraphStore } from "../graph";

/**
 * The default data behind an asset: a FHIR R4 `collection` Bundle of a few patients with their
 * encounters, conditions, observations and medication requests, read from the knowledge graph.
 * Only the providing holder's own patients, and only those its scope's catalogue datasets include
 * (`HealthDataset -INCLUDES-> Patient`, the edges the catalogue's recordCount counts; decision 0096):
 * no scope, no records; under a permit, not those who withdrew their consent to its programme (0119).
 * Small and bounded, and pseudonymised for secondary use: no names, birth year only.
 */

const MAX_PATIENTS = 10;
const MAX_PER_TYPE = 10;
const CLINICAL = ["HAS_ENCOUNTER", "HAS_CONDITION", "HAS_OBSERVATION", "HAS_MEDICATION_REQUEST"] as const;

const DIRECT_IDENTIFIERS = ["name", "givenName", "familyName", "city"];

/** what an asset's records may be drawn from (graph-bridge.ts `releasedAnswer`) */
export interface RecordScope {
  /** the providing holder (its participant context): only its own records */
  holder: string | undefined;
  /** the catalogue datasets the records come from */
  datasets: readonly string[];
  /** the data permit the records leave under, if any */
  permitId?: string;
}

/** the records behind an asset, within its scope */
export type RecordSource = (assetId: string, scope: RecordScope) => Promise<unknown>;

function resource(node: GraphNode): Record<string, unknown> {
  const { resourceId, resourceType, ...rest } = node.properties;
  if (node.label === "Patient") {
    for (const k of DIRECT_IDENTIFIERS) delete rest[k];
    if (typeof rest.birthDate === "string") rest.birthDate = rest.birthDate.slice(0, 4);
  }
  return {
    resourceType: typeof resourceType === "string" ? resourceType : node.label,
    id: typeof resourceId === "string" ? resourceId : node.id,
    ...rest,
    graphId: node.id,
  };
}

/**
 * the patients who withdrew their consent to the research programme of the permit (the HDABApproval
 * with its permitNumber, whose consents the patient gives and revokes): a consent to it and none active
 */
async function withdrawnFrom(graph: GraphStore, permitId: string | undefined): Promise<Set<string>> {
  const withdrawn = new Set<string>();
  if (!permitId) return withdrawn;
  for (const programme of await findAll(graph, "HDABApproval", { permitNumber: permitId })) {
    const consents = await findAll(graph, "Consent", { studyId: programme.id });
    const active = new Set(
      consents.filter((c) => c.properties.status === "active").map((c) => c.properties.patientId),
    );
    for (const c of consents)
      if (!active.has(c.properties.patientId)) withdrawn.add(String(c.properties.patientId));
  }
  return withdrawn;
}

/** up to MAX_PATIENTS patients of the holder that the holder's datasets of the scope include */
async function patientsIn(
  graph: GraphStore,
  { holder, datasets, permitId }: RecordScope,
): Promise<GraphNode[]> {
  const found = new Map<string, GraphNode>();
  const holderOf = catalogueHolder(graph);
  const withdrawn = await withdrawnFrom(graph, permitId);
  for (const id of datasets) {
    if (!holder || (await holderOf(id)) !== holder) continue;
    for (const p of await linked(graph, id, "INCLUDES", "out", MAX_PATIENTS + withdrawn.size))
      if (
        found.size < MAX_PATIENTS &&
        p.label === "Patient" &&
        p.properties.holder === holder &&
        !withdrawn.has(p.id)
      )
        found.set(p.id, p);
  }
  return [...found.values()];
}

export function graphDataSource(graph: GraphStore): RecordSource {
  return async (assetId, scope) => {
    const entries: Record<string, unknown>[] = [];
    for (const p of await patientsIn(graph, scope)) {
      entries.push(resource(p));
      const related = await Promise.all(
        CLINICAL.map((type) => linked(graph, p.id, type, "out", MAX_PER_TYPE)),
      );
      for (const node of related.flat()) entries.push(resource(node));
    }
    return {
      resourceType: "Bundle",
      type: "collection",
      timestamp: new Date().toISOString(),
      meta: { tag: [{ system: "urn:health-dataspace-hub:asset", code: assetId }] },
      total: entries.length,
      entry: entries.map((r) => ({ fullUrl: `urn:uuid:${String(r.id)}`, resource: r })),
    };
  };
}

/** the holder of a catalogue dataset (its `holder`), undefined when the catalogue has no dataset of that id */
export const catalogueHolder =
  (graph: GraphStore) =>
  async (datasetId: string): Promise<string | undefined> => {
    const n = await graph.getNode(datasetId);
    return n?.label === "HealthDataset" ? String(n.properties.holder ?? "") : undefined;
  };
