import { createHash } from "node:crypto";
import {
  CAMEL_CASE,
  LAYER_LABELS,
  UPPER_SNAKE_CASE,
  layerOfLabel,
  type EdgeRecord,
  type NodeRecord,
  type PropertyValue,
} from "../model";
import { generateGraph, type GenerateOptions } from "./generate";
import { ACCOUNT_PATIENTS } from "./population";
import { PHARMACOVIGILANCE } from "./terminology";

interface Graph {
  nodes: Map<string, NodeRecord>;
  edges: EdgeRecord[];
  order: string[];
}

function collect(opts: GenerateOptions): Graph {
  const graph: Graph = { nodes: new Map(), edges: [], order: [] };
  for (const batch of generateGraph(opts)) {
    for (const n of batch.nodes) {
      graph.nodes.set(n.id, n);
      graph.order.push(n.id);
    }
    graph.edges.push(...batch.edges);
  }
  return graph;
}

function digest(opts: GenerateOptions): string {
  const hash = createHash("sha256");
  for (const batch of generateGraph(opts)) hash.update(JSON.stringify(batch));
  return hash.digest("hex");
}

const ofLabel = (g: Graph, label: string) => [...g.nodes.values()].filter((n) => n.label === label);
const out = (g: Graph, source: string, type: string) =>
  g.edges.filter((e) => e.source === source && e.type === type);

function isPropertyValue(v: unknown): v is PropertyValue {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v))
    return (
      v.every((x) => typeof x === "string") || v.every((x) => typeof x === "number" && Number.isFinite(x))
    );
  return false;
}

const isUri = (v: unknown) => typeof v === "string" && /^(https?|urn):/.test(v) && URL.canParse(v);

describe("generateGraph at 50 patients", () => {
  let graph: Graph;
  beforeAll(() => {
    graph = collect({ patients: 50 });
  });

  it("is deterministic: same options, same output; another seed, another output", () => {
    const a = digest({ patients: 30 });
    expect(digest({ patients: 30 })).toBe(a);
    expect(digest({ patients: 30, seed: 7 })).not.toBe(a);
    const rebatched = collect({ patients: 30, batchSize: 7 });
    const original = collect({ patients: 30 });
    expect(rebatched.order).toEqual(original.order);
    expect([...rebatched.nodes.values()]).toEqual([...original.nodes.values()]);
  });

  it("keeps a patient the same whatever the population size", () => {
    const small = collect({ patients: 5 });
    for (const id of small.order.filter(
      (id) => small.nodes.get(id)?.layer === "l3" || small.nodes.get(id)?.layer === "l4",
    )) {
      expect(graph.nodes.get(id)).toEqual(small.nodes.get(id));
    }
  });

  it("has unique node ids, unique edge ids and no dangling edge", () => {
    expect(graph.nodes.size).toBe(graph.order.length);
    expect(new Set(graph.edges.map((e) => e.id)).size).toBe(graph.edges.length);
    for (const e of graph.edges) {
      expect(graph.nodes.has(e.source), `${e.id} source`).toBe(true);
      expect(graph.nodes.has(e.target), `${e.id} target`).toBe(true);
    }
  });

  it("points every edge at a node of its own batch or an earlier one", () => {
    const seen = new Set<string>();
    for (const batch of generateGraph({ patients: 20, batchSize: 3 })) {
      for (const n of batch.nodes) seen.add(n.id);
      for (const e of batch.edges) expect(seen.has(e.source) && seen.has(e.target), e.id).toBe(true);
    }
  });

  it("follows the naming conventions and property value types", () => {
    const allowed = new Set(Object.values(LAYER_LABELS).flat());
    for (const n of graph.nodes.values()) {
      expect(allowed.has(n.label), n.label).toBe(true);
      expect(n.layer).toBe(layerOfLabel(n.label));
      for (const [key, value] of Object.entries(n.properties)) {
        expect(key, `${n.label}.${key}`).toMatch(CAMEL_CASE);
        expect(isPropertyValue(value), `${n.id}.${key}`).toBe(true);
      }
    }
    for (const e of graph.edges) expect(e.type).toMatch(UPPER_SNAKE_CASE);
  });

  it("covers all five layers, reference data first, each patient's records consecutively", () => {
    const layers = graph.order.map((id) => graph.nodes.get(id)!.layer);
    expect(new Set(layers)).toEqual(new Set(["l1", "l2", "l3", "l4", "l5"]));
    const firstPatient = layers.findIndex((l) => l === "l3" || l === "l4");
    expect(layers.slice(firstPatient).every((l) => l === "l3" || l === "l4")).toBe(true);
    expect(layers.slice(0, firstPatient).includes("l5")).toBe(true);
    const l3 = graph.order.filter((id) => graph.nodes.get(id)!.layer === "l3");
    expect(l3[0]).toBe("patient-000001");
    const owner = (id: string) => id.match(/\d{6}/)![0];
    const changes = l3.filter((id, i) => i > 0 && owner(id) !== owner(l3[i - 1]));
    expect(changes.every((id) => id.startsWith("patient-"))).toBe(true);
  });

  it("numbers patients patient-000001 … and links the two patient accounts", () => {
    const patients = ofLabel(graph, "Patient").map((p) => p.id);
    expect(patients).toEqual(
      Array.from({ length: 50 }, (_, i) => `patient-${String(i + 1).padStart(6, "0")}`),
    );
    for (const account of ACCOUNT_PATIENTS) {
      const patient = graph.nodes.get(`patient-${String(account.index).padStart(6, "0")}`)!;
      expect(patient.properties.name).toBe(`${account.givenName} ${account.familyName}`);
      expect(out(graph, patient.id, "HAS_CONDITION").length).toBeGreaterThanOrEqual(3);
      expect(out(graph, patient.id, "HAS_MEDICATION_REQUEST").length).toBeGreaterThanOrEqual(3);
      expect(out(graph, patient.id, "HAS_OBSERVATION").length).toBeGreaterThanOrEqual(8);
      expect(out(graph, patient.id, "HAS_ENCOUNTER").length).toBeGreaterThanOrEqual(4);
    }
  });

  it("gives patients the Patient fields and a holder matching their country", () => {
    for (const p of ofLabel(graph, "Patient")) {
      const { resourceId, name, gender, birthDate, city, country, holder } = p.properties;
      expect(typeof resourceId).toBe("string");
      expect(typeof name).toBe("string");
      expect(typeof city).toBe("string");
      expect(["female", "male"]).toContain(gender);
      expect(birthDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(holder).toBe(country === "DE" ? "alphaklinik-berlin" : "lmc");
    }
  });

  it("maps every FHIR resource to its OMOP row and codes both", () => {
    const mapped = new Map(
      graph.edges.filter((e) => e.type === "MAPPED_TO").map((e) => [e.source, e.target]),
    );
    const pairs: Record<string, [string, string]> = {
      Patient: ["OMOPPerson", ""],
      Condition: ["ConditionOccurrence", "SnomedConcept"],
      MedicationRequest: ["DrugExposure", "RxNormConcept"],
      Observation: ["Measurement", "LoincCode"],
    };
    for (const [fhir, [omop, concept]] of Object.entries(pairs)) {
      for (const n of ofLabel(graph, fhir)) {
        const row = graph.nodes.get(mapped.get(n.id) ?? "");
        expect(row?.label, n.id).toBe(omop);
        if (!concept) continue;
        const codes = [n.id, row!.id].map((id) =>
          graph.nodes.get(out(graph, id, "CODED_BY")[0]?.target ?? ""),
        );
        for (const c of codes) expect(c?.label).toBe(concept);
        expect(codes[0]?.properties.code).toBe(n.properties.code);
      }
    }
    for (const n of [
      ...ofLabel(graph, "Condition"),
      ...ofLabel(graph, "Observation"),
      ...ofLabel(graph, "MedicationRequest"),
    ]) {
      expect(graph.nodes.get(out(graph, n.id, "RECORDED_IN")[0]?.target ?? "")?.label).toBe("Encounter");
    }
  });

  it("has the five organisations with their did:web identities", () => {
    const participants = ofLabel(graph, "Participant");
    const bySlug = Object.fromEntries(participants.map((p) => [p.properties.slug, p]));
    expect(Object.keys(bySlug).sort()).toEqual(["alphaklinik-berlin", "irs", "lmc", "medreg", "pharmaco"]);
    const expected: Record<string, [string, string, string]> = {
      "alphaklinik-berlin": ["AlphaKlinik Berlin", "DATA_HOLDER", "DE"],
      lmc: ["Limburg Medical Centre", "DATA_HOLDER", "NL"],
      pharmaco: ["PharmaCo Research AG", "DATA_USER", "DE"],
      medreg: ["MedReg DE", "HDAB_AUTHORITY", "DE"],
      irs: ["Institut de Recherche Santé", "DATA_USER", "FR"],
    };
    for (const [slug, [displayName, role, country]] of Object.entries(expected)) {
      const p = bySlug[slug];
      expect(p.id).toBe(`participant-${slug}`);
      expect(p.properties).toMatchObject({ displayName, role, country });
      expect(p.properties.did).toMatch(/^did:web:[a-z0-9.-]+(:[a-z0-9-]+)*$/);
      expect(typeof p.properties.ehdsParticipantType).toBe("string");
    }
    expect(bySlug["alphaklinik-berlin"].properties.did).toBe("did:web:alpha-klinik.de:participant");
  });

  it("has a marketplace of products, contracts, permits and ODRL policies", () => {
    for (const label of ["DataProduct", "Contract", "HDABApproval", "OdrlPolicy"]) {
      const count = ofLabel(graph, label).length;
      expect(count, label).toBeGreaterThanOrEqual(5);
      expect(count, label).toBeLessThanOrEqual(15);
    }
    for (const policy of ofLabel(graph, "OdrlPolicy")) {
      expect(["Set", "Offer", "Agreement"]).toContain(policy.properties.policyType);
      for (const key of ["permission", "prohibition", "obligation"]) {
        expect(Array.isArray(JSON.parse(policy.properties[key] as string))).toBe(true);
      }
    }
    for (const c of ofLabel(graph, "Contract")) {
      expect(out(graph, c.id, "PROVIDER")).toHaveLength(1);
      expect(out(graph, c.id, "CONSUMER")).toHaveLength(1);
      expect(out(graph, c.id, "GOVERNS")).toHaveLength(1);
      expect(graph.edges.some((e) => e.type === "APPROVES" && e.target === c.id)).toBe(true);
    }
    for (const p of ofLabel(graph, "DataProduct")) {
      expect(graph.nodes.get(out(graph, p.id, "DESCRIBED_BY")[0].target)?.label).toBe("HealthDataset");
    }
  });

  it("describes datasets with the spec's HealthDataset fields and their true record counts", () => {
    const datasets = ofLabel(graph, "HealthDataset");
    expect(datasets.length).toBeGreaterThanOrEqual(8);
    expect(datasets.length).toBeLessThanOrEqual(12);
    const catalogue = ofLabel(graph, "Catalogue");
    expect(catalogue).toHaveLength(1);
    const keys = [
      "title",
      "description",
      "publisher",
      "license",
      "datasetType",
      "legalBasis",
      "recordCount",
      "personalData",
      "sensitiveData",
      "purpose",
      "populationCoverage",
      "conformsTo",
      "keywords",
      "theme",
      "holder",
    ];
    for (const d of datasets) {
      expect(d.id).toMatch(/^dataset-/);
      expect(Object.keys(d.properties).sort()).toEqual([...keys].sort());
      const p = d.properties;
      for (const k of ["title", "description", "publisher", "legalBasis", "purpose", "populationCoverage"])
        expect(typeof p[k], k).toBe("string");
      expect(isUri(p.license)).toBe(true);
      expect(isUri(p.datasetType)).toBe(true);
      expect(Number.isInteger(p.recordCount)).toBe(true);
      expect(typeof p.personalData).toBe("boolean");
      expect(typeof p.sensitiveData).toBe("boolean");
      expect((p.conformsTo as string[]).every(isUri)).toBe(true);
      expect(["alphaklinik-berlin", "lmc"]).toContain(p.holder);
      const included = out(graph, d.id, "INCLUDES");
      expect(p.recordCount).toBe(included.length);
      expect(included.every((e) => graph.nodes.get(e.target)?.label === "Patient")).toBe(true);
      expect(
        graph.edges.some((e) => e.type === "CONTAINS" && e.source === catalogue[0].id && e.target === d.id),
      ).toBe(true);
      expect(out(graph, d.id, "HAS_DISTRIBUTION").length).toBeGreaterThanOrEqual(1);
    }
    expect(ofLabel(graph, "DataService").every((s) => out(graph, s.id, "SERVES").length > 0)).toBe(true);
  });

  it("codes with real terminologies and maps SNOMED CT to ICD-10", () => {
    const uti = graph.nodes.get("snomed-68566005")!;
    expect(uti.properties.display).toMatch(/urinary tract infect/i);
    expect(out(graph, uti.id, "MAPS_TO").map((e) => e.target)).toEqual(["icd10-N39.0"]);
    expect(graph.nodes.get("rxnorm-2551")?.properties.display).toBe("ciprofloxacin");
    const rupture = graph.nodes.get(`snomed-${PHARMACOVIGILANCE.tendonRupture}`)!;
    expect(out(graph, rupture.id, "MAPS_TO")[0].target).toMatch(/^icd10-M66\./);
    expect(graph.nodes.get("snomed-44054006")).toBeDefined();
    expect(graph.nodes.get("loinc-4548-4")?.properties.unit).toBe("%");
  });
});

describe("generateGraph at 200 patients", () => {
  it("answers the pharmacovigilance question: a UTI treated with ciprofloxacin, then a tendon rupture", () => {
    const graph = collect({ patients: 200 });
    const { urinaryTractInfection, ciprofloxacin, tendonRupture } = PHARMACOVIGILANCE;
    const byPatient = (label: string, code: string) =>
      ofLabel(graph, label).filter((n) => n.properties.code === code);
    const utiPatients = new Set(
      byPatient("Condition", urinaryTractInfection).map((n) => n.properties.patientId),
    );
    const ciproForUti = byPatient("MedicationRequest", ciprofloxacin).filter(
      (m) => m.properties.reasonCode === urinaryTractInfection,
    );
    const cases = ciproForUti.filter((m) => {
      if (!utiPatients.has(m.properties.patientId)) return false;
      return byPatient("Condition", tendonRupture).some(
        (c) =>
          c.properties.patientId === m.properties.patientId &&
          (c.properties.onsetDate as string) > (m.properties.authoredOn as string),
      );
    });
    expect(ciproForUti.length).toBeGreaterThanOrEqual(2);
    expect(cases.length).toBeGreaterThanOrEqual(1);
  });
});
