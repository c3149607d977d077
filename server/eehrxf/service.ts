/**
 * GET /api/eehrxf: the EEHRxF priority categories with their FHIR profiles, and how much of the
 * graph's FHIR layer (l3) has what each profile needs — per element, per profile (resources with
 * every required element) and per category (documents that could be assembled). Computed by
 * reading the l3 labels through the GraphStore port, cached per graph version.
 */
import { z } from "zod";
import { str } from "../analytics";
import type { SessionUser } from "../auth/user";
import { isSmall, isSupervisory, leaf, protect, type CountNode } from "../federated";
import { labelScopedCache, scanNodes, type Properties, type GraphStore } from "../graph";
import { CATEGORIES, type CategoryDef, type ProfileDef } from "./profiles";
import { createKept, deepFrozen, EVERYONE } from "../http/kept";

/** null: withheld under the small-count rule (`forUser`) */
const count = z.number().int().min(0).nullable();
const percent = z.number().min(0).max(100).nullable();
const profileCoverage = z.object({
  id: z.string(),
  title: z.string(),
  canonical: z.string(),
  resourceType: z.string(),
  inGraph: z.boolean(),
  patients: z
    .array(z.number().int().min(0))
    .optional()
    .describe(
      "the distinct patients of resources, conformant and each element's present; supervisory roles only",
    ),
  resources: count,
  conformant: count,
  coverage: percent,
  elements: z.array(
    z.object({
      path: z.string(),
      required: z.boolean(),
      present: count,
      coverage: percent,
      note: z.string().optional(),
    }),
  ),
});
type ProfileCoverage = z.infer<typeof profileCoverage>;

const categoryCoverage = z.object({
  id: z.string(),
  title: z.string(),
  legalBasis: z.string(),
  description: z.string(),
  guides: z.array(z.object({ name: z.string(), url: z.string() })),
  profiles: z.array(profileCoverage),
  readiness: z.object({
    unit: z.string(),
    requirement: z.string(),
    total: count,
    ready: count,
    coverage: percent,
    partial: z.object({ count, description: z.string() }).optional(),
    gaps: z.array(z.string()),
  }),
});
type CategoryCoverage = z.infer<typeof categoryCoverage>;

/** GET /api/eehrxf's answer (its declaration: contract.ts) */
export const eehrxfCoverage = z.object({
  source: z.string(),
  generatedAt: z.iso.datetime(),
  graphVersion: z.number(),
  categories: z.array(categoryCoverage),
  cache: z.object({ hit: z.boolean(), builtMs: z.number() }),
});
export type EehrxfCoverage = z.infer<typeof eehrxfCoverage>;

const SOURCE_LABELS = ["Patient", "Condition", "MedicationRequest", "Observation", "Encounter"] as const;
const pct = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 10 : 0);

interface ProfileAcc {
  def: ProfileDef;
  resources: number;
  conformant: number;
  present: number[];
  /** the distinct patients of resources, conformant and each element's present */
  who: Set<string>[];
}

/** applies a profile's checks to one resource; true when every required element is there */
function check(acc: ProfileAcc, p: Properties, patient: string): boolean {
  if (acc.def.applies && !acc.def.applies(p)) return false;
  acc.resources++;
  acc.who[0].add(patient);
  let ok = true;
  acc.def.elements.forEach((e, i) => {
    const present = e.test(p);
    if (present) {
      acc.present[i]++;
      acc.who[i + 2].add(patient);
    } else if (e.required) ok = false;
  });
  if (ok) {
    acc.conformant++;
    acc.who[1].add(patient);
  }
  return ok;
}

function toCoverage(acc: ProfileAcc): ProfileCoverage {
  const d = acc.def;
  return {
    id: d.id,
    title: d.title,
    canonical: d.canonical,
    resourceType: d.resourceType,
    inGraph: d.label !== null,
    patients: acc.who.map((w) => w.size),
    resources: acc.resources,
    conformant: acc.conformant,
    coverage: pct(acc.conformant, acc.resources),
    elements: d.elements.map((e, i) => ({
      path: e.path,
      required: e.required,
      present: acc.present[i],
      coverage: pct(acc.present[i], acc.resources),
      ...(e.note ? { note: e.note } : {}),
    })),
  };
}

/** what a category lacks: profiles not in the graph, required elements not always present (or withheld) */
function gapsOf(profiles: ProfileCoverage[]): string[] {
  const missing = profiles
    .filter((p) => !p.inGraph)
    .map((p) => `${p.resourceType} (${p.id}) is not recorded in the graph`);
  const weak = profiles
    .filter((p) => p.inGraph)
    .flatMap((p) =>
      p.elements
        .filter((e) => e.required && (e.coverage === null || e.coverage < 100))
        .map(
          (e) =>
            `${e.path}: ${e.coverage === null ? "coverage withheld (small counts)" : `present in ${e.coverage}%`} of ${p.resourceType} resources${e.note ? ` (${e.note})` : ""}`,
        ),
    );
  return [...missing, ...weak];
}

async function compute(graph: GraphStore): Promise<Omit<EehrxfCoverage, "cache">> {
  const version = graph.version();
  const accs = new Map<string, ProfileAcc>();
  for (const c of CATEGORIES)
    for (const def of c.profiles)
      accs.set(`${c.id}/${def.id}`, {
        def,
        resources: 0,
        conformant: 0,
        present: def.elements.map(() => 0),
        who: [null, null, ...def.elements].map(() => new Set<string>()),
      });

  // per patient: which summary sections exist; per inpatient encounter: diagnoses recorded in it
  const summaryPatients = new Set<string>();
  const withProblem = new Set<string>();
  const withMedication = new Set<string>();
  const inpatientOk = new Set<string>();
  const diagnosedEncounters = new Set<string>();

  for (const label of SOURCE_LABELS) {
    const profiles = [...accs].filter(([, acc]) => acc.def.label === label);
    for await (const page of scanNodes(graph, label)) {
      for (const n of page) {
        const p = n.properties;
        for (const [key, acc] of profiles) {
          if (!check(acc, p, label === "Patient" ? n.id : (str(p.patientId) ?? n.id))) continue;
          if (key === "patient-summary/patient-eu-core") summaryPatients.add(n.id);
          if (key === "patient-summary/condition-eu-eps") withProblem.add(str(p.patientId) ?? "");
          if (key === "patient-summary/MedicationRequest-uv-ips") withMedication.add(str(p.patientId) ?? "");
          if (key === "discharge/encounter-eu-hdr") inpatientOk.add(n.id);
        }
        if (label === "Condition" && str(p.encounterId)) diagnosedEncounters.add(str(p.encounterId)!);
      }
    }
  }

  const categories = CATEGORIES.map((c: CategoryDef): CategoryCoverage => {
    const profiles = c.profiles.map((p) => toCoverage(accs.get(`${c.id}/${p.id}`)!));
    const gaps = gapsOf(profiles);
    const first = accs.get(`${c.id}/${c.profiles[0].id}`)!;
    const answer = (
      unit: string,
      total: number,
      ready: number,
      coverage: number,
      partial?: { count: number; description: string },
    ): CategoryCoverage => ({
      ...c,
      profiles,
      readiness: {
        unit,
        requirement: c.readiness,
        total,
        ready,
        coverage,
        ...(partial && { partial }),
        gaps,
      },
    });
    switch (c.id) {
      case "patient-summary": {
        const partial = [...summaryPatients].filter(
          (id) => withProblem.has(id) && withMedication.has(id),
        ).length;
        return answer("patients", first.resources, 0, 0, {
          count: partial,
          description: "identity, problems and medication present; only the allergies section is missing",
        });
      }
      case "discharge": {
        const n = [...inpatientOk].filter((id) => diagnosedEncounters.has(id)).length;
        return answer("inpatient stays", first.resources, n, pct(n, first.resources));
      }
      case "imaging":
        return answer("imaging studies", 0, 0, 0);
      default:
        return answer(
          c.id === "laboratory" ? "laboratory results" : "medication orders",
          first.resources,
          first.conformant,
          pct(first.conformant, first.resources),
        );
    }
  });
  return {
    source: "FHIR R4 resources of layer l3 (Patient, Condition, MedicationRequest, Observation, Encounter)",
    generatedAt: new Date().toISOString(),
    graphVersion: version,
    categories,
  };
}

export function createEehrxfService(graph: GraphStore, k: number) {
  const cache = labelScopedCache(graph, SOURCE_LABELS, () => compute(graph));
  // the answer kept per graph version and what the caller may see (exact, or under k), as built (its cache
  // note the build's): encoded once at the edge
  const answers = createKept<EehrxfCoverage>({ max: 8 });
  return {
    /** the coverage as `user` may see it (`forUser`) */
    async coverage(user: Pick<SessionUser, "roles">): Promise<EehrxfCoverage> {
      const { value, hit, builtMs, version } = await cache.get();
      const exact = () =>
        answers({ caller: EVERYONE, versions: [version] }, async () =>
          deepFrozen({ ...value, graphVersion: version, cache: { hit, builtMs } }),
        );
      if (isSupervisory(user)) return exact();
      return answers({ caller: `k=${k}`, versions: [version] }, async () =>
        deepFrozen(forUser(await exact(), user, k)),
      );
    },
  };
}

/**
 * The answer as `user` may see it: k (the insight answers' small-count threshold) applied with
 * complementary suppression (server/federated/suppression.ts) to everyone but the supervisory roles
 * (isSupervisory). One tree per profile: its resources, partitioned into conformant or not, into
 * having each element or not, and (the category's first profile) into ready or not; a percentage
 * of a withheld count is withheld too. A count is of resources (records) and is withheld also when
 * it is of fewer than k patients (`patients`, which only the supervisory roles are shown).
 */
export function forUser(c: EehrxfCoverage, user: Pick<SessionUser, "roles">, k: number): EehrxfCoverage {
  if (isSupervisory(user)) return c;
  const shown = (n: CountNode) => (n.suppressed ? null : n.value);
  const split = (key: string, part: number | null, total: number, patients?: number): CountNode[] => [
    { ...leaf(key, part ?? 0), forceSuppress: patients !== undefined && isSmall(patients, k) },
    leaf(`${key}:rest`, total - (part ?? 0), true),
  ];
  const categories = c.categories.map((cat) => {
    let readiness = cat.readiness;
    const profiles = cat.profiles.map(({ patients: who = [], ...p }, i) => {
      const total = p.resources ?? 0;
      const groups = [
        split("conformant", p.conformant, total, who[1]),
        ...p.elements.map((e, j) => split(e.path, e.present, total, who[j + 2])),
      ];
      const r = cat.readiness;
      const extra = i === 0 ? split("ready", r.partial?.count ?? r.ready, total) : null;
      const all = extra ? [...groups, extra] : groups;
      const root = protect(
        { key: p.id, value: total, forceSuppress: isSmall(who[0] ?? 0, k), groups: all },
        k,
      );
      const at = (n: CountNode, pct: number | null) => (n.suppressed ? null : pct);
      if (extra) {
        const cell = extra[0];
        readiness = {
          ...r,
          total: shown(root),
          ...(r.partial
            ? { partial: { ...r.partial, count: shown(cell) }, coverage: at(root, r.coverage) }
            : { ready: shown(cell), coverage: at(cell, r.coverage) }),
        };
      }
      return {
        ...p,
        resources: shown(root),
        conformant: shown(groups[0][0]),
        coverage: at(groups[0][0], p.coverage),
        elements: p.elements.map((e, j) => ({
          ...e,
          present: shown(groups[j + 1][0]),
          coverage: at(groups[j + 1][0], e.coverage),
        })),
      };
    });
    return { ...cat, profiles, readiness: { ...readiness, gaps: gapsOf(profiles) } };
  });
  return { ...c, categories };
}

export type EehrxfService = ReturnType<typeof createEehrxfService>;
