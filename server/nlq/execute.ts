/**
 * Building blocks of the template executors: read-only traversals through the GraphStore port,
 * and result cells that stay tied to the counts they publish so the k threshold can be applied
 * to the whole answer (values and the sentences that describe them) after it is computed.
 */
import { z } from "zod";
import { type Concept, type ConceptDictionary, type OmopIndex, num, str } from "../analytics";
import { linked, type GraphNode, type GraphStore } from "../graph";
import {
  isSmall,
  listable,
  protect,
  publicReason,
  type CountNode,
  type PublicSuppressionReason,
} from "../federated";

export interface ExecContext {
  graph: GraphStore;
  index: OmopIndex;
  dict: ConceptDictionary;
}

export const column = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(["text", "code", "count", "number", "percent"]),
});
export type Column = z.infer<typeof column>;

/** a count published from a node of a count tree */
export class CountCell {
  constructor(readonly node: CountNode) {}
}
/** a number computed from counts (a rate, a mean): withheld when any of them is suppressed */
export class DerivedCell {
  constructor(
    readonly value: number | null,
    readonly from: CountNode[],
    /** the value itself is a count of records: withheld when in 1..k−1 */
    readonly isCount = false,
  ) {}
}
export type RawCell = string | number | null | CountCell | DerivedCell;

/** the count a row is listed on: set by listedOn() */
const LISTED_ON = Symbol("listedOn");
export type RawRow = Record<string, RawCell> & { [LISTED_ON]?: CountNode };

/** a row there only because `node`'s count is not zero: listed only when that count is published (listable()) */
export function listedOn(node: CountNode, row: Record<string, RawCell>): RawRow {
  return Object.assign(row, { [LISTED_ON]: node });
}

/** how an interpretation sentence shows a count: the number, or "fewer than k" */
export type Show = (node: CountNode) => string;

export interface RawResult {
  columns: Column[];
  rows: RawRow[];
  /** the count trees the rows publish from (k is applied to each) */
  roots: CountNode[];
  /**
   * the cohort the question is about, and how to name it ("patients with asthma"): when k
   * suppresses its count, the answer has no rows and says only that the cohort is too small
   */
  cohort?: { node: CountNode; name: string };
  /** at most this many rows, counted after the rows that may not be listed are left out */
  limit?: number;
  /**
   * with k, the sentence that says which rows are not listed (rows listedOn() a suppressed
   * count); said in every answer, so that it tells nothing of whether any was left out
   */
  unlisted?: (k: number) => string;
  /** `listed`: how many rows are listed */
  interpretation: (show: Show, shown: (node: CountNode) => boolean, listed: number) => string;
  /** the read-only steps that ran */
  plan: string[];
}

export interface FinalResult {
  columns: Column[];
  rows: Record<string, string | number | null>[];
  suppressedCells: {
    row: number;
    column: string;
    reason: PublicSuppressionReason | "derived-from-suppressed";
  }[];
  interpretation: string;
  plan: string[];
}

/**
 * What a caller under k is told instead of rows when the cohort's own count is suppressed: no
 * count, no row, nothing that depends on who is in it.
 */
export function cohortWithheld(cohort: NonNullable<RawResult["cohort"]>, k: number): string {
  // a cohort below k and one withheld to protect a small count read alike, as their cells do
  // (publicReason in server/federated/suppression.ts)
  return publicReason(cohort.node.reason ?? "below-k") === "small-count"
    ? `The cohort's count is suppressed: fewer than ${k} ${cohort.name}, or a count that would let such a count ` +
        `be recomputed. No rows are shown, so that no one in it can be singled out (k = ${k}).`
    : `The cohort's count is withheld so that another count cannot be recomputed from it; ` +
        `no rows are shown (k = ${k}).`;
}

/** the sentence of a list that leaves out rows listedOn() a suppressed count (RawResult.unlisted) */
export function unlistedNote(plural: string, k: number): string {
  return (
    `Only ${plural} whose count can be shown are listed and counted here: one with fewer than ${k} patients, ` +
    `or whose count is withheld to protect another, is left out (k = ${k}).`
  );
}

export function finalize(raw: RawResult, k: number | null): FinalResult {
  if (k !== null) protect(raw.roots, k);
  const hidden = (n: CountNode) => !!n.suppressed;
  if (k !== null && raw.cohort && hidden(raw.cohort.node))
    return {
      columns: raw.columns,
      rows: [],
      suppressedCells: [],
      interpretation: cohortWithheld(raw.cohort, k),
      plan: raw.plan,
    };
  const listed = raw.rows
    .filter((row) => row[LISTED_ON] === undefined || listable(row[LISTED_ON]))
    .slice(0, raw.limit);
  const suppressedCells: FinalResult["suppressedCells"] = [];
  const rows = listed.map((row, i) => {
    const out: Record<string, string | number | null> = {};
    for (const [key, cell] of Object.entries(row)) {
      if (cell instanceof CountCell) {
        out[key] = hidden(cell.node) ? null : cell.node.value;
        if (hidden(cell.node))
          suppressedCells.push({ row: i, column: key, reason: publicReason(cell.node.reason ?? "below-k") });
      } else if (cell instanceof DerivedCell) {
        const withheld =
          cell.from.some(hidden) ||
          (cell.isCount && k !== null && cell.value !== null && isSmall(cell.value, k));
        out[key] = withheld ? null : cell.value;
        if (withheld && cell.value !== null)
          suppressedCells.push({ row: i, column: key, reason: "derived-from-suppressed" });
      } else out[key] = cell;
    }
    return out;
  });
  // one text for every withheld count: a count below k and one withheld to protect it read alike (above)
  const withheld = `[suppressed: <${k}, or withheld to protect a count <${k}]`;
  const show: Show = (n) => (hidden(n) ? withheld : n.value.toLocaleString("en-GB"));
  return {
    columns: raw.columns,
    rows,
    suppressedCells,
    interpretation: [
      raw.interpretation(show, (n) => !hidden(n), rows.length),
      k !== null && raw.unlisted ? raw.unlisted(k) : "",
    ]
      .filter(Boolean)
      .join(" "),
    plan: raw.plan,
  };
}

export const rate = (part: CountNode, whole: CountNode, digits = 1): DerivedCell =>
  new DerivedCell(
    whole.value ? Math.round((part.value / whole.value) * 100 * 10 ** digits) / 10 ** digits : null,
    [part, whole],
  );

export const ROW_LIMIT = 10_000_000;

/** l5 → rows coded by a concept (CODED_BY, incoming), of one label */
export async function codedBy(ctx: ExecContext, concept: Concept, label: string): Promise<GraphNode[]> {
  return (await linked(ctx.graph, concept.nodeId, "CODED_BY", "in", ROW_LIMIT)).filter(
    (n) => n.label === label,
  );
}

const START_DATE = {
  ConditionOccurrence: "conditionStartDate",
  DrugExposure: "drugExposureStartDate",
  Measurement: "measurementDate",
} as const;
/** the persons (OMOP person ids) with rows coded by the concept, and the first date of each */
export async function personsCodedBy(
  ctx: ExecContext,
  concept: Concept,
  label: keyof typeof START_DATE,
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const n of await codedBy(ctx, concept, label)) {
    const personId = num(n.properties.personId);
    if (personId === undefined || !ctx.index.indexOfPerson.has(personId)) continue;
    const date = str(n.properties[START_DATE[label]]) ?? "";
    const prev = out.get(personId);
    if (prev === undefined || date < prev) out.set(personId, date);
  }
  return out;
}

/** the latest value of a measurement per person, with its reference range */
export async function latestValues(
  ctx: ExecContext,
  concept: Concept,
): Promise<Map<number, { value: number; low?: number; high?: number }>> {
  const latest = new Map<number, { value: number; date: string; low?: number; high?: number }>();
  for (const n of await codedBy(ctx, concept, "Measurement")) {
    const p = n.properties;
    const personId = num(p.personId);
    const value = num(p.valueAsNumber);
    if (personId === undefined || value === undefined || !ctx.index.indexOfPerson.has(personId)) continue;
    const date = str(p.measurementDatetime) ?? str(p.measurementDate) ?? "";
    const prev = latest.get(personId);
    if (!prev || date > prev.date)
      latest.set(personId, { value, date, low: num(p.rangeLow), high: num(p.rangeHigh) });
  }
  return latest;
}

export function allPersonIds(ctx: ExecContext): number[] {
  return ctx.index.persons.map((p) => p.personId);
}

export function mean(values: number[]): number | null {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}
export function sd(values: number[]): number | null {
  const m = mean(values);
  if (m === null || values.length < 2) return null;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}

export function conceptLabel(c: Concept): string {
  return c.system === "SNOMED CT" && c.icd10
    ? `${c.display} (SNOMED CT ${c.code}, ICD-10 ${c.icd10.code})`
    : `${c.display} (${c.system} ${c.code})`;
}
