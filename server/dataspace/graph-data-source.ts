import { linked, type GraphNode, type GraphStore } from "../graph";

/**
 * The default data behind an asset of the embedded dataspace: a FHIR R4 `collection` Bundle of a
 * few of the providing organisation's patients with their encounters, conditions, observations
 * and medication requests, read from the knowledge graph. Small and bounded, and pseudonymised
 * for secondary use: no names, birth year only.
 */

const MAX_PATIENTS = 10;
const MAX_PER_TYPE = 10;
const CLINICAL = ["HAS_ENCOUNTER", "HAS_CONDITION", "HAS_OBSERVATION", "HAS_MEDICATION_REQUEST"] as const;

const DIRECT_IDENTIFIERS = ["name", "givenName", "familyName", "city"];

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

export function graphDataSource(graph: GraphStore) {
  return async (assetId: string, providerContextId?: string): Promise<unknown> => {
    const where = providerContextId ? { holder: providerContextId } : undefined;
    let patients = await graph.findNodes({ label: "Patient", where, limit: MAX_PATIENTS });
    if (patients.length === 0 && where)
      patients = await graph.findNodes({ label: "Patient", limit: MAX_PATIENTS });
    const entries: Record<string, unknown>[] = [];
    for (const p of patients) {
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
