/**
 * GET /api/analytics: the OMOP CDM dashboard (layer l4). Every number is computed from the l4
 * nodes through the GraphStore port (omop-index.ts), so the totals equal the graph's own counts
 * exactly; concept names come from the ontology layer (l5). The index is cached per graph
 * version. Callers whose ODRL scope sets k see small cells suppressed (same engine as the
 * federated summary).
 */
import type { z } from "zod";
import type { SessionUser } from "../auth/user";
import { TOP_DEFAULT, TOP_MAX, type dashboard, type measurementEntry, type topEntry } from "./contract";
import { holderName } from "./holders";
import { round } from "./scan";
import { csvText } from "../http/csv";
import { createKept, deepFrozen, EVERYONE, identityOf } from "../http/kept";
import type { GraphStore } from "../graph";
import { listable, partsOf, protect, published, type CountNode, scopeFor } from "../federated";
import { KIND_SYSTEM, type ConceptCache, type ConceptDictionary, type ConceptKind } from "./concepts";
import {
  AGE_REFERENCE_DATE,
  tally,
  type CodeStats,
  type MeasurementStats,
  type OmopIndex,
  type OmopIndexCache,
} from "./omop-index";

export type TopEntry = z.infer<typeof topEntry>;
export type MeasurementEntry = z.infer<typeof measurementEntry>;
export type AnalyticsDashboard = z.infer<typeof dashboard>;

type DashboardBody = Omit<AnalyticsDashboard, "generatedAt" | "graphVersion" | "scope" | "cache">;

export function createAnalyticsService(deps: {
  graph: GraphStore;
  omop: OmopIndexCache;
  concepts: ConceptCache;
  k: number;
}) {
  const { graph, omop, concepts, k } = deps;
  const keptAnswers = createKept<AnalyticsDashboard>({ max: 64 });
  const keptBodies = createKept<DashboardBody>({ max: 64 });

  /** the first `n` concepts by persons, as `listed` answers them, those suppressed under k left out (listable()) */
  function top<T extends CodeStats, E extends { suppressed: boolean }>(
    map: Map<string, T>,
    n: number,
    listed: (s: T) => E,
  ): E[] {
    const out: E[] = [];
    const sorted = [...map.values()].sort(
      (a, b) => b.persons.length - a.persons.length || b.rows - a.rows || a.code.localeCompare(b.code),
    );
    for (const s of sorted) {
      if (out.length >= n) break;
      const e = listed(s);
      if (!e.suppressed) out.push(e);
    }
    return out;
  }

  /** the persons partitions (holder, gender, age band) with k applied when the scope says so */
  function distributions(index: OmopIndex, scopeK: number | null) {
    const cells = (attr: "holder" | "gender" | "ageBand"): CountNode[] =>
      [...tally(index, attr)].map(([key, value]) => ({ key, value }));
    const [holders, genders, bands] = [cells("holder"), cells("gender"), cells("ageBand")];
    const root: CountNode = {
      key: "persons",
      value: index.persons.length,
      groups: [holders, genders, bands],
    };
    if (scopeK !== null) protect(root, scopeK);
    return {
      holders: holders.map((h) => ({ ...published(h, scopeK), name: holderName(h.key) })),
      // "other" and "unknown" are listed only when someone has them: under k only when that count is published
      gender: genders
        .filter((g) => g.key === "female" || g.key === "male" || listable(g))
        .map((g) => published(g, scopeK)),
      ageBands: bands.filter((b) => b.key !== "unknown" || listable(b)).map((b) => published(b, scopeK)),
    };
  }

  function entry(
    kind: ConceptKind,
    s: CodeStats,
    name: (k: ConceptKind, c: string) => string,
    total: number,
    scopeK: number | null,
  ): TopEntry {
    // the persons having a concept, and (hidden) those who do not, partition all persons
    const cell: CountNode = { key: s.code, value: s.persons.length };
    if (scopeK !== null) protect(partsOf("persons", total, [cell]), scopeK);
    const suppressed = !!cell.suppressed || (scopeK !== null && s.rows >= 1 && s.rows < scopeK);
    return {
      code: s.code,
      system: KIND_SYSTEM[kind],
      display: name(kind, s.code),
      omopConceptId: s.conceptId,
      rows: suppressed ? null : s.rows,
      persons: suppressed ? null : s.persons.length,
      suppressed,
      // as published() shows a count: the same text for a small one and one withheld to protect it
      display_persons: published({ key: s.code, value: s.persons.length, suppressed }, scopeK).display,
    };
  }

  /** the dashboard's figures for an index, k (null: exact) and list length */
  function dashboardBody(
    index: OmopIndex,
    dict: ConceptDictionary,
    scopeK: number | null,
    n: number,
  ): DashboardBody {
    const total = index.persons.length;
    const measurementEntry = (s: MeasurementStats): MeasurementEntry => {
      const base = entry("measurement", s, dict.name, total, scopeK);
      const mean = s.values ? s.sum / s.values : null;
      const sd =
        s.values > 1 && mean !== null
          ? Math.sqrt(Math.max(0, (s.sumSq - s.values * mean * mean) / (s.values - 1)))
          : null;
      const small = (v: number) => scopeK !== null && v >= 1 && v < scopeK;
      // above / below / within partition the values: publish the flags only when none is small
      const hideFlags =
        base.suppressed ||
        small(s.aboveRange) ||
        small(s.belowRange) ||
        small(s.values - s.aboveRange - s.belowRange);
      return {
        ...base,
        unit: s.unit,
        mean: base.suppressed ? null : round(mean),
        sd: base.suppressed ? null : round(sd),
        aboveRange: hideFlags ? null : s.aboveRange,
        belowRange: hideFlags ? null : s.belowRange,
      };
    };
    return {
      source:
        "OMOP CDM v5.4 (layer l4): OMOPPerson, ConditionOccurrence, DrugExposure, Measurement; names from layer l5",
      ageReferenceDate: AGE_REFERENCE_DATE,
      totals: index.totals,
      ...distributions(index, scopeK),
      topConditions: top(index.conditions, n, (s) => entry("condition", s, dict.name, total, scopeK)),
      topDrugs: top(index.drugs, n, (s) => entry("drug", s, dict.name, total, scopeK)),
      topMeasurements: top(index.measurements, n, measurementEntry),
      notes: [
        ...(scopeK === null
          ? []
          : [
              `under k = ${scopeK} a concept whose count is suppressed is left out of the top lists, and so are the other gender and the unknown age band`,
            ]),
        "visits: distinct visit_occurrence_id values referenced by the l4 rows (the FHIR encounters they were recorded in)",
        `ages at ${AGE_REFERENCE_DATE}, the extraction date of the records, from year, month and day of birth`,
        "persons per concept count distinct persons; rows count OMOP records",
      ],
    };
  }

  /** the body for an index, names, k and list length: computed once per combination */
  const bodyFor = (index: OmopIndex, dict: ConceptDictionary, scopeK: number | null, n: number) =>
    keptBodies(
      { caller: EVERYONE, versions: [identityOf(index), identityOf(dict)], args: [scopeK, n] },
      async () => dashboardBody(index, dict, scopeK, n),
    );

  const topOf = (opts: { top?: number }) => Math.min(TOP_MAX, Math.max(1, opts.top ?? TOP_DEFAULT));

  return {
    async dashboard(
      user: Pick<SessionUser, "roles" | "participantDid">,
      opts: { top?: number } = {},
    ): Promise<AnalyticsDashboard> {
      const n = topOf(opts);
      const [{ value: index, hit, builtMs, version }, dict, scope] = await Promise.all([
        omop.get(),
        concepts.get(),
        scopeFor(graph, user, k),
      ]);
      // the whole answer kept per graph version, scope and list length, as built (its time and its
      // cache note the build's): a kept value, encoded once at the edge
      return keptAnswers({ caller: JSON.stringify(scope), versions: [version], args: [n] }, async () =>
        deepFrozen({
          ...(await bodyFor(index, dict, scope.k, n)),
          generatedAt: new Date().toISOString(),
          graphVersion: version,
          scope,
          cache: { hit, builtMs, indexBuiltAt: index.builtAt },
        }),
      );
    },

    /** the dashboard as CSV sections (the view's export) */
    toCsv(d: AnalyticsDashboard): string {
      const out: unknown[][] = [
        ["section", "code", "system", "name", "rows", "persons", "unit", "mean", "sd", "suppressed"],
      ];
      for (const [k, v] of Object.entries(d.totals))
        out.push(["total", k, "", "", v, "", "", "", "", "false"]);
      for (const h of d.holders)
        out.push(["holder", h.key, "", h.name, "", h.count, "", "", "", h.suppressed]);
      for (const g of d.gender) out.push(["gender", g.key, "", g.key, "", g.count, "", "", "", g.suppressed]);
      for (const a of d.ageBands)
        out.push(["age band", a.key, "", a.key, "", a.count, "", "", "", a.suppressed]);
      // a condition or a drug has no unit, mean or sd: empty cells, as a measurement's nulls are
      const tops: [string, (TopEntry & Partial<MeasurementEntry>)[]][] = [
        ["condition", d.topConditions],
        ["drug", d.topDrugs],
        ["measurement", d.topMeasurements],
      ];
      for (const [section, list] of tops)
        for (const t of list)
          out.push([
            section,
            t.code,
            t.system,
            t.display,
            t.rows,
            t.persons,
            t.unit,
            t.mean,
            t.sd,
            t.suppressed,
          ]);
      return csvText(out);
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
