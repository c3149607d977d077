/**
 * The ontology layer (l5) as a dictionary: SNOMED CT, ICD-10, RxNorm and LOINC concepts with
 * their display names, the SNOMED CT → ICD-10 mappings (MAPS_TO), read through the GraphStore
 * port and cached per graph version. Analytics names its top lists with it; the question
 * service resolves terms against it.
 */
import { findAll, labelScopedCache, linked, type GraphStore, LAYER_LABELS } from "../graph";
import { num, str } from "./scan";

export type ConceptKind = "condition" | "drug" | "measurement";
export type CodeSystemName = "SNOMED CT" | "ICD-10" | "RxNorm" | "LOINC";

export const KIND_SYSTEM: Record<ConceptKind, CodeSystemName> = {
  condition: "SNOMED CT",
  drug: "RxNorm",
  measurement: "LOINC",
};

export interface Concept {
  kind: ConceptKind;
  /** the graph node */
  nodeId: string;
  code: string;
  system: CodeSystemName;
  display: string;
  omopConceptId: number | null;
  /** conditions: the ICD-10 code mapped with MAPS_TO */
  icd10?: { code: string; display: string; nodeId: string };
  /** drugs: ATC code */
  atc?: string;
  /** measurements: UCUM unit */
  unit?: string;
}

export type ConceptDictionary = Awaited<ReturnType<typeof loadConcepts>>;

export async function loadConcepts(graph: GraphStore) {
  const [snomed, icd10, rxnorm, loinc] = await Promise.all(
    ["SnomedConcept", "ICD10Code", "RxNormConcept", "LoincCode"].map((label) => findAll(graph, label)),
  );
  const icdById = new Map(icd10.map((n) => [n.id, n]));
  const all: Concept[] = [];
  for (const [kind, nodes] of [
    ["condition", snomed],
    ["drug", rxnorm],
    ["measurement", loinc],
  ] as const) {
    for (const n of nodes) {
      const code = str(n.properties.code);
      if (!code) continue;
      const concept: Concept = {
        kind,
        nodeId: n.id,
        code,
        system: KIND_SYSTEM[kind],
        display: str(n.properties.display) ?? code,
        omopConceptId: num(n.properties.omopConceptId) ?? null,
      };
      if (kind === "drug") concept.atc = str(n.properties.atcCode);
      if (kind === "measurement") concept.unit = str(n.properties.unit);
      if (kind === "condition") {
        const maps = await linked(graph, n.id, "MAPS_TO", "out", 10);
        const target = maps.map((m) => icdById.get(m.id) ?? m).find((t) => t.label === "ICD10Code");
        concept.icd10 = target
          ? {
              code: str(target.properties.code) ?? "",
              display: str(target.properties.display) ?? "",
              nodeId: target.id,
            }
          : undefined;
      }
      all.push(concept);
    }
  }
  const index = new Map(all.map((c) => [`${c.kind}:${c.code}`, c]));
  const byKind: Record<ConceptKind, Concept[]> = { condition: [], drug: [], measurement: [] };
  for (const c of all) byKind[c.kind].push(c);
  return {
    all,
    byKind,
    get: (kind: ConceptKind, code: string) => index.get(`${kind}:${code}`),
    /** the SNOMED CT concepts mapped to an ICD-10 code */
    byIcd10: (code: string) =>
      byKind.condition.filter((c) => c.icd10?.code.toLowerCase() === code.toLowerCase()),
    /** the display name of a code, or the code itself */
    name: (kind: ConceptKind, code: string) => index.get(`${kind}:${code}`)?.display ?? code,
  };
}

/** the concept dictionary of the current graph version */
export function createConceptCache(graph: GraphStore) {
  const cache = labelScopedCache(graph, LAYER_LABELS.l5, () => loadConcepts(graph));
  return { get: async () => (await cache.get()).value };
}
export type ConceptCache = ReturnType<typeof createConceptCache>;
