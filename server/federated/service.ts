/**
 * GET /api/federated: a cohort summary across the secure processing environments (SPEs) of the
 * data holders. Each holder's partition of the OMOP layer (OMOPPerson.careSiteSourceValue) is its
 * SPE: the cohort is counted inside every SPE, and only the protected aggregate leaves.
 *
 * What is published (a star of one-way partitions of the cohort, see suppression.ts for why):
 *   cohort total N
 *     ├─ per SPE          (one cell per data holder; together they partition N)
 *     ├─ per gender       (female, male, other, unknown; pooled across SPEs)
 *     └─ per age band     (0-17 … 80+, unknown; pooled across SPEs)
 *
 * k is FEDERATED_K (default 5, never below 5) or a larger `k` asked for in the query, for every
 * caller. The rules (suppression.ts) apply, with the differencing guard against each query with one
 * criterion fewer (the classic "tracker" pair); the adversary model of audit.ts checks every answer
 * before it leaves (a finding suppresses the whole answer). Every query is written to the audit log
 * (kind "insight") so the access body can review query patterns: multi-step trackers are a residual
 * risk that the log is there to expose.
 */
import { z } from "zod";
import type { AuditBatchWriter } from "../audit/batch-writer";
import {
  type Concept,
  type ConceptCache,
  type ConceptDictionary,
  AGE_BANDS,
  AGE_REFERENCE_DATE,
  GENDERS,
  intersect,
  tally,
  type AgeBand,
  type Gender,
  type OmopIndex,
  type OmopIndexCache,
  holderName,
  describeConcept,
  describedConcept,
  examplesOf,
  num,
  resolveTerm,
} from "../analytics";
import { createQueryLog } from "../audit/query-log";
import type { SessionUser } from "../auth/user";
import { findAll, linked, type GraphStore } from "../graph";
import { badRequest } from "../http/errors";
import { patientNumberOfId } from "../privacy/ids";
import { createKept, deepFrozen, EVERYONE, identityOf } from "../http/kept";
import { findDisclosures } from "./audit";
import {
  countSuppressed,
  isSmall,
  listable,
  MIN_K,
  nodesOf,
  protect,
  published,
  suppressionRule,
  type CountNode,
  publishedCount,
  type PublishedCount,
} from "./suppression";

export const CRITERIA = ["condition", "drug", "measurement", "ageBand", "gender"] as const;
export type CriterionKey = (typeof CRITERIA)[number];
export const K_MAX = 1000;

export interface ResolvedCriteria {
  condition?: Concept;
  drug?: Concept;
  measurement?: Concept;
  ageBand?: AgeBand;
  gender?: Gender;
}

const text = z.string();
const counted = z.array(publishedCount);
/** GET /api/federated's answer (its declaration: contract.ts) */
export const federatedSummary = z.object({
  criteria: z.partialRecord(
    z.enum(CRITERIA),
    z.object({
      input: text.describe("as given, trimmed"),
      ...describedConcept.partial().shape,
      value: text.optional().describe("ageBand, gender: the value as read"),
    }),
  ),
  k: z.number().int(),
  cohort: publishedCount,
  environments: z.array(publishedCount.extend({ holder: text, name: text, environment: text })),
  strata: z.object({ gender: counted, ageBand: counted }),
  suppression: z.object({
    rule: text,
    counts: z.record(text, z.number().int()),
    differencingChecked: z.array(text),
  }),
  method: z.array(text),
  ageReferenceDate: text,
  graphVersion: z.number(),
  generatedAt: z.iso.datetime(),
});
export type FederatedSummary = z.infer<typeof federatedSummary>;

/** the criteria as given (trimmed, each at most 200 characters), before they are resolved */
export function criteriaInput(params: URLSearchParams): Partial<Record<CriterionKey, string>> {
  const input: Partial<Record<CriterionKey, string>> = {};
  for (const key of CRITERIA) {
    const v = params.get(key)?.trim();
    if (v) {
      if (v.length > 200) throw badRequest(`${key} must be at most 200 characters`);
      input[key] = v;
    }
  }
  return input;
}

function resolveCriteria(
  input: Partial<Record<CriterionKey, string>>,
  dict: ConceptDictionary,
): ResolvedCriteria {
  const resolved: ResolvedCriteria = {};
  for (const kind of ["condition", "drug", "measurement"] as const) {
    const v = input[kind];
    if (!v) continue;
    const r = resolveTerm(dict, kind, v);
    if (!r) {
      const system =
        kind === "condition" ? "SNOMED CT or ICD-10" : kind === "drug" ? "RxNorm or ATC" : "LOINC";
      throw badRequest(
        `${kind}: no ${system} concept in the graph matches "${v}" (give a code or a name such as ${examplesOf(dict, kind)})`,
      );
    }
    resolved[kind] = r.concept;
  }
  const oneOf = <T extends string>(key: string, values: readonly T[], v: string) => {
    if (!values.includes(v as T)) throw badRequest(`${key} must be one of ${values.join(", ")}`);
    return v as T;
  };
  if (input.ageBand)
    resolved.ageBand = oneOf("ageBand", AGE_BANDS, input.ageBand.replace(/\s/g, "").replace(/–/g, "-"));
  if (input.gender) resolved.gender = oneOf("gender", GENDERS, input.gender.toLowerCase());
  return resolved;
}

/** indexes of the persons matching the criteria */
export function cohortMembers(index: OmopIndex, c: ResolvedCriteria): Int32Array {
  const sets = (["condition", "drug", "measurement"] as const).flatMap((k) =>
    c[k] ? [index[`${k}s`].get(c[k]!.code)?.persons ?? new Int32Array(0)] : [],
  );
  const members = sets.length
    ? sets.sort((a, b) => a.length - b.length).reduce((acc, s) => intersect(acc, s))
    : Int32Array.from(index.persons.keys());
  if (!c.ageBand && !c.gender) return members;
  return members.filter(
    (i) =>
      (!c.ageBand || index.persons[i].ageBand === c.ageBand) &&
      (!c.gender || index.persons[i].gender === c.gender),
  );
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** the raw (unprotected) count tree of a cohort */
export function cohortTree(index: OmopIndex, members: Int32Array): CountNode {
  const cells = (prefix: string, attr: "holder" | "gender" | "ageBand"): CountNode[] =>
    [...tally(index, attr, members)].map(([k, v]) => ({ key: `${prefix}:${k}`, value: v }));
  return {
    key: "cohort",
    value: members.length,
    groups: [cells("holder", "holder"), cells("gender", "gender"), cells("age", "ageBand")],
  };
}

const flatten = (node: CountNode) => new Map(nodesOf(node).map((n) => [n.key, n]));

/**
 * Builds the protected tree for the criteria: the differencing guard against every query with
 * one criterion fewer, then protect().
 */
export function protectedCohort(
  index: OmopIndex,
  criteria: ResolvedCriteria,
  k: number,
): { tree: CountNode; checked: string[] } {
  const tree = cohortTree(index, cohortMembers(index, criteria));
  const cells = flatten(tree);
  const checked: string[] = [];
  for (const key of CRITERIA) {
    if (criteria[key] === undefined) continue;
    checked.push(key);
    const parentCriteria: ResolvedCriteria = { ...criteria };
    delete parentCriteria[key];
    const parent = flatten(cohortTree(index, cohortMembers(index, parentCriteria)));
    for (const [cellKey, cell] of cells) {
      const diff = (parent.get(cellKey)?.value ?? 0) - cell.value;
      if (cell.value > 0 && diff >= 1 && diff <= k - 1) cell.forceSuppress = true;
    }
  }
  protect(tree, k);
  if (findDisclosures(tree, k).length) {
    // cannot happen by construction; if it ever did, nothing leaves
    for (const n of cells.values()) {
      n.suppressed = true;
      n.reason = n === tree ? "complementary" : "parent-suppressed";
    }
  }
  return { tree, checked };
}

/** what the federated service counts on; the question service (server/nlq) too */
export interface FederatedDeps {
  graph: GraphStore;
  omop: OmopIndexCache;
  concepts: ConceptCache;
  /** writes the query log's batches (server/audit/query-log.ts, server/audit/batch-writer.ts) */
  auditBatches?: AuditBatchWriter;
  k: number;
}

export function createFederatedService(deps: FederatedDeps) {
  const configuredK = Math.max(MIN_K, deps.k);
  const log = createQueryLog(deps.auditBatches);
  /** protected trees per index (a graph version's OMOP layer), criteria and k: the same query is answered once */
  const trees = createKept<{ tree: CountNode; checked: string[] }>({ max: 2000 });
  function cachedCohort(index: OmopIndex, resolved: ResolvedCriteria, k: number) {
    const criteria = [resolved.condition?.code, resolved.drug?.code, resolved.measurement?.code];
    return trees(
      {
        caller: EVERYONE,
        versions: [identityOf(index)],
        args: [k, criteria, resolved.ageBand, resolved.gender],
      },
      async () => protectedCohort(index, resolved, k),
    );
  }

  /**
   * whole answers per graph version, concept names, criteria as given and k, kept as built (their time
   * the build's): kept values, encoded once at the edge. The query is logged at every ask.
   */
  const answers = createKept<{ answer: FederatedSummary; target: string; outcome: string }>({ max: 2000 });
  function keptAnswer(
    index: OmopIndex,
    version: number,
    dict: ConceptDictionary,
    input: Partial<Record<CriterionKey, string>>,
    k: number,
  ) {
    return answers(
      { caller: EVERYONE, versions: [version, identityOf(index), identityOf(dict)], args: [k, input] },
      async () => {
        // a criterion that resolves to no concept throws here (400) and is not kept
        const resolved = resolveCriteria(input, dict);
        const answer = await buildAnswer(index, resolved, input, k);
        return {
          answer: deepFrozen({ ...answer, graphVersion: version, generatedAt: new Date().toISOString() }),
          target:
            Object.entries(input)
              .map(([key, v]) => `${key}=${v}`)
              .join("&") || "all persons",
          outcome: `k=${k}; cohort ${answer.cohort.display}`,
        };
      },
    );
  }

  type Answer = Omit<FederatedSummary, "graphVersion" | "generatedAt">;
  async function buildAnswer(
    index: OmopIndex,
    resolved: ResolvedCriteria,
    input: Partial<Record<CriterionKey, string>>,
    k: number,
  ): Promise<Answer> {
    const { tree, checked } = await cachedCohort(index, resolved, k);
    const [holders, genders, bands] = tree.groups!;
    const criteria: FederatedSummary["criteria"] = {};
    for (const key of CRITERIA) {
      const v = input[key];
      if (!v) continue;
      const concept = resolved[key as "condition" | "drug" | "measurement"];
      criteria[key] =
        concept && typeof concept === "object"
          ? { input: v, ...describeConcept(concept) }
          : { input: v, value: String(resolved[key]) };
    }
    const strip = (prefix: string) => (p: PublishedCount) => ({
      ...p,
      key: p.key.slice(prefix.length + 1),
    });
    return {
      criteria,
      k,
      cohort: published(tree, k),
      environments: holders.map((h) => {
        const holder = h.key.slice("holder:".length);
        const name = holderName(holder);
        return {
          ...published(h, k),
          key: holder,
          holder,
          name,
          environment: `${name} secure processing environment`,
        };
      }),
      strata: {
        gender: genders.map((g) => published(g, k)).map(strip("gender")),
        // "unknown" is listed only when its count is published: listed as "<k", it would say that
        // someone in the cohort has no known age, even in a cohort whose total is suppressed
        ageBand: bands
          .filter((b) => b.key !== "age:unknown" || listable(b))
          .map((b) => published(b, k))
          .map(strip("age")),
      },
      suppression: {
        rule: suppressionRule(k),
        counts: countSuppressed(tree),
        differencingChecked: checked,
      },
      method: [
        "Each data holder's partition of the OMOP layer is its secure processing environment; the cohort is counted in each and only aggregates leave.",
        "Published: the cohort total, one count per environment, and the cohort by gender and by age band pooled across environments. No cross-tabulations.",
        suppressionRule(k),
        "Every answer is checked against an adversary that subtracts any published cells from any published total before it is returned.",
      ],
      ageReferenceDate: AGE_REFERENCE_DATE,
    };
  }

  function kFrom(params: URLSearchParams): number {
    const raw = params.get("k");
    if (raw === null || raw.trim() === "") return configuredK;
    if (!/^\d+$/.test(raw.trim())) throw badRequest("k must be an integer");
    const k = Number(raw);
    if (k < configuredK)
      throw badRequest(`k must be at least ${configuredK} (the configured minimum; it can only be raised)`);
    if (k > K_MAX) throw badRequest(`k must be at most ${K_MAX}`);
    return k;
  }

  const withheld = createKept<readonly string[]>({ max: 1 });
  type Cell = { kind: "condition" | "drug" | "measurement"; code: string; holder: string; persons: number[] };
  /** every holder's cell of every one-criterion cohort, by its size (built once per withheldCounts) */
  function cellsBySize(index: OmopIndex): Map<number, Cell[]> {
    const bySize = new Map<number, Cell[]>();
    for (const kind of ["condition", "drug", "measurement"] as const)
      for (const [code, { persons }] of index[`${kind}s`]) {
        const byHolder = new Map<string, number[]>();
        for (const i of persons) push(byHolder, index.persons[i].holder, i);
        for (const [holder, cell] of byHolder)
          push(bySize, cell.length, { kind, code, holder, persons: cell });
      }
    return bySize;
  }
  /** whether these persons are exactly one holder's cell of a one-criterion cohort that k suppresses */
  async function pinsCell(index: OmopIndex, cells: Cell[], members: Set<number>): Promise<boolean> {
    for (const { kind, code, holder, persons } of cells) {
      if (!persons.every((i) => members.has(i))) continue;
      const { tree } = await cachedCohort(index, { [kind]: { code } as Concept }, configuredK);
      if (tree.groups![0].find((c) => c.key === `holder:${holder}`)?.suppressed) return true;
    }
    return false;
  }
  return {
    configuredK,
    /**
     * The catalogue datasets whose recordCount a caller bound by k is not shown (decision 0093, 1 Dec):
     * a count from 1 to k−1, and a count that is exactly a holder's cell of a one-criterion cohort
     * (its INCLUDES are that holder's persons with the condition, drug or measurement) which this
     * summary suppresses: published, it would pin that cell and, by the cohort total, its complement.
     */
    async withheldCounts(): Promise<readonly string[]> {
      const index = await deps.omop.index();
      return withheld({ caller: EVERYONE, versions: [deps.graph.version(), identityOf(index)] }, async () => {
        const out: string[] = [];
        const bySize = cellsBySize(index);
        for (const d of await findAll(deps.graph, "HealthDataset")) {
          const n = num(d.properties.recordCount) ?? 0;
          if (isSmall(n, configuredK)) {
            out.push(d.id);
            continue;
          }
          // only a count the size of some holder's cell can be that cell: read its patients then
          const cells = bySize.get(n);
          if (!cells) continue;
          const members = new Set<number>();
          for (const p of await linked(deps.graph, d.id, "INCLUDES", "out", 10_000_000))
            members.add(index.indexOfPerson.get(patientNumberOfId(p.id) ?? -1) ?? -1);
          if (members.size === n && (await pinsCell(index, cells, members))) out.push(d.id);
        }
        return deepFrozen(out);
      });
    },
    flushLog: () => log.flush(),

    async summary(params: URLSearchParams, user: Pick<SessionUser, "username">): Promise<FederatedSummary> {
      const k = kFrom(params);
      const input = criteriaInput(params);
      const [{ value: index, version }, dict] = await Promise.all([deps.omop.get(), deps.concepts.get()]);
      const { answer, target, outcome } = await keptAnswer(index, version, dict, input, k);
      log.append({ action: "federated.query", actor: user.username, target, outcome, kind: "insight" });
      return answer;
    },

    /** what the cohort builder offers */
    async options() {
      const [dict, index] = await Promise.all([deps.concepts.get(), deps.omop.index()]);
      const present = (kind: "condition" | "drug" | "measurement", map: Map<string, unknown>) =>
        dict.byKind[kind]
          .filter((c) => map.has(c.code))
          .map((c) => ({ code: c.code, display: c.display }))
          .sort((a, b) => a.display.localeCompare(b.display));
      return {
        k: configuredK,
        conditions: present("condition", index.conditions),
        drugs: present("drug", index.drugs),
        measurements: present("measurement", index.measurements),
        ageBands: [...AGE_BANDS],
        genders: [...GENDERS],
      };
    },
  };
}

export type FederatedService = ReturnType<typeof createFederatedService>;
