/**
 * The question templates: each has question patterns (regular expressions over the normalised
 * question, with named groups for its parameters), the layers it touches, the Cypher it stands
 * for (with $parameters: shown with every answer, and the shape a language back end's proposal
 * must have to be run), and an executor that runs the equivalent read-only traversal through the
 * GraphStore port with the parameters already resolved to codes. Free text never reaches a query.
 */
import { type Concept, type ConceptKind, holderName, round, str, tally } from "../analytics";
import { findAll, linked, type Layer } from "../graph";
import { leaf, partsOf, type CountNode } from "../federated";
import {
  allPersonIds,
  codedBy,
  conceptLabel,
  CountCell,
  DerivedCell,
  latestValues,
  listedOn,
  mean,
  personsCodedBy,
  rate,
  sd,
  type Column,
  type ExecContext,
  type RawResult,
  unlistedNote,
} from "./execute";

export interface TemplateParam {
  name: string;
  kind: ConceptKind | "term";
  description: string;
  /**
   * the words that introduce this parameter in a question, for templates with two of one kind
   * (server/nlq/understand.ts): `before` is tested on the up to three words before the concept,
   * `after` on the word after it ("UTI patients")
   */
  marker?: { before: RegExp; after?: RegExp };
}

export interface Template {
  id: string;
  title: string;
  description: string;
  patterns: RegExp[];
  /**
   * the words that say what is asked, tested on the canonical question when no pattern matches
   * word for word (server/nlq/understand.ts: the concepts named then fill the parameters)
   */
  intent: RegExp;
  params: TemplateParam[];
  layers: Layer[];
  examples: string[];
  cypher: string;
  run(ctx: ExecContext, params: Record<string, Concept>): Promise<RawResult>;
}

const P = "(?:patients|people|persons|subjects)";
const WITH = "(?:with|diagnosed\\s+with|who\\s+have|who\\s+had|having|suffering\\s+from)";
const TREATED = "(?:treated|prescribed|taking|exposed|given|receiving|on)";
const re = (s: string) => new RegExp(`^${s}$`);
/** intent words, as whole words of the canonical question */
const words = (s: string) => new RegExp(`\\b(?:${s})\\b`);
const COUNTING =
  "how many|number of|count|counts|prevalence|how common|how frequent\\w*|how often|proportion|share|percentage|total";
const MEASURING =
  "average|mean|median|typical|levels?|values?|readings?|how high|how low|results?|measured|measurements?";
const DRUG_WORDS =
  "drugs?|medications?|medicines?|meds|prescri\\w+|pharmacotherap\\w*|treatments?|therap(?:y|ies)";
const RANKING = "most|top|commonest|leading|frequent\\w*|prevalent|common";

const COUNT = "count";
const col = (key: string, label: string, type: Column["type"] = "text"): Column => ({ key, label, type });

/** the last two cells of most rows: a count of patients and its share of a whole */
const counted = (part: CountNode, whole: CountNode) => ({
  patients: new CountCell(part),
  share: rate(part, whole),
});
const countedColumns = (patients: string, share: string) => [
  col("patients", patients, COUNT),
  col("share", share, "percent"),
];

/** persons of the OMOP index with/without a set, as a root over all persons */
function cohortRoot(ctx: ExecContext, key: string, members: Set<number>) {
  const cohort: CountNode = { key, value: members.size, groups: [] };
  return { root: partsOf("persons", allPersonIds(ctx).length, [cohort]), cohort };
}

/** one binary subgroup (published part, hidden rest) added under a node */
function subgroup(parent: CountNode, key: string, part: number): CountNode {
  const node: CountNode = { key, value: part, groups: [] };
  parent.groups!.push([node, leaf(`${key}:rest`, parent.value - part, true)]);
  return node;
}

function measurementBreakdown(
  parent: CountNode,
  key: string,
  members: Set<number>,
  latest: Map<number, { value: number; low?: number; high?: number }>,
) {
  const values: number[] = [];
  let above = 0,
    below = 0,
    within = 0;
  for (const id of members) {
    const v = latest.get(id);
    if (!v) continue;
    values.push(v.value);
    if (v.high !== undefined && v.value > v.high) above++;
    else if (v.low !== undefined && v.value < v.low) below++;
    else within++;
  }
  const measured = subgroup(parent, `${key}:measured`, values.length);
  const nAbove = leaf(`${key}:above`, above);
  const nWithin = leaf(`${key}:within`, within);
  const nBelow = leaf(`${key}:below`, below);
  measured.groups!.push([nAbove, nWithin, nBelow]);
  return {
    measured,
    cells: {
      measured: new CountCell(measured),
      mean: new DerivedCell(round(mean(values)), [measured]),
      sd: new DerivedCell(round(sd(values)), [measured]),
      above: new CountCell(nAbove),
      within: new CountCell(nWithin),
      below: new CountCell(nBelow),
    },
  };
}

const MEASUREMENT_COLUMNS = [
  col("group", "Group"),
  col("patients", "Patients", COUNT),
  col("measured", "Measured", COUNT),
  col("mean", "Mean (latest value)", "number"),
  col("sd", "SD", "number"),
  col("unit", "Unit"),
  col("above", "Above range", COUNT),
  col("within", "Within range", COUNT),
  col("below", "Below range", COUNT),
];

async function measurementComparison(
  ctx: ExecContext,
  measurement: Concept,
  cohortName: string,
  members: Set<number>,
  plan: string[],
): Promise<RawResult> {
  const latest = await latestValues(ctx, measurement);
  const all = new Set(allPersonIds(ctx));
  const others = new Set([...all].filter((id) => !members.has(id)));
  const inCohort: CountNode = { key: "cohort", value: members.size, groups: [] };
  const outside: CountNode = { key: "cohort:others", value: others.size, groups: [] };
  const root: CountNode = { key: "persons", value: all.size, groups: [[inCohort, outside]] };
  const a = measurementBreakdown(inCohort, "cohort", members, latest);
  const b = measurementBreakdown(outside, "cohort:others", others, latest);
  const unit = measurement.unit ?? null;
  // the dashboard publishes the measurement's persons and range flags: the two groups are its parts
  const totals = (["above", "within", "below"] as const).map((f) => {
    const parts = [a.cells[f].node, b.cells[f].node];
    return partsOf(f, parts[0].value + parts[1].value, parts);
  });
  const measured = ctx.index.measurements.get(measurement.code)?.persons.length ?? 0;
  return {
    columns: MEASUREMENT_COLUMNS,
    rows: [
      { group: cohortName, patients: new CountCell(inCohort), ...a.cells, unit },
      { group: "all other patients", patients: new CountCell(outside), ...b.cells, unit },
    ],
    roots: [root, partsOf("measured", measured, [a.measured, b.measured]), ...totals],
    cohort: { node: inCohort, name: cohortName },
    plan: [
      ...plan,
      `(${measurement.system} ${measurement.code})<-[:CODED_BY]-(Measurement) [l5 → l4]: latest valueAsNumber per person, against rangeLow / rangeHigh`,
    ],
    interpretation: (show, shown) => {
      const m = (x: typeof a) =>
        shown(x.measured) && x.cells.mean.value !== null
          ? `${x.cells.mean.value} ${unit ?? ""}`.trim()
          : "withheld";
      return `${measurement.display}: ${show(a.measured)} of ${show(inCohort)} ${cohortName} have a value recorded; their mean latest value is ${m(a)}, against ${m(b)} in ${show(b.measured)} measured other patients.`;
    },
  };
}

/** the patients (FHIR layer) with a condition, as a cohort under a root over all patients */
async function patientCohort(ctx: ExecContext, condition: Concept) {
  const conditions = await codedBy(ctx, condition, "Condition");
  const patients = new Set(
    conditions.map((c) => str(c.properties.patientId)).filter((x): x is string => !!x),
  );
  const allPatients = await ctx.graph.countWhere("Patient");
  const cohort: CountNode = { key: "cohort", value: patients.size, groups: [] };
  return { patients, root: partsOf("patients", allPatients, [cohort]), cohort };
}

async function conditionCohort(ctx: ExecContext, condition: Concept) {
  return new Set((await personsCodedBy(ctx, condition, "ConditionOccurrence")).keys());
}

async function drugCohort(ctx: ExecContext, drug: Concept) {
  return new Set((await personsCodedBy(ctx, drug, "DrugExposure")).keys());
}

/** one row: the concept's cells, then how many of all patients are in its cohort ("<n> of <all> patients <says>") */
function countRow(
  ctx: ExecContext,
  members: Set<number>,
  key: string,
  name: string,
  row: { cells: [Column, string | null][]; plan: string; says: string },
): RawResult {
  const { root, cohort } = cohortRoot(ctx, key, members);
  return {
    columns: [...row.cells.map(([c]) => c), ...countedColumns("Patients", "Share of all patients (%)")],
    rows: [{ ...Object.fromEntries(row.cells.map(([c, v]) => [c.key, v])), ...counted(cohort, root) }],
    roots: [root],
    cohort: { node: cohort, name },
    plan: [row.plan],
    interpretation: (show) => `${show(cohort)} of ${show(root)} patients ${row.says}.`,
  };
}

const CONDITION_STEP = (c: Concept) =>
  `(SnomedConcept {code: ${c.code}})<-[:CODED_BY]-(ConditionOccurrence) [l5 → l4]: distinct personId`;
const DRUG_STEP = (c: Concept) =>
  `(RxNormConcept {code: ${c.code}})<-[:CODED_BY]-(DrugExposure) [l5 → l4]: distinct personId, first drugExposureStartDate`;

/** a distribution of a cohort over one attribute of the person (gender, age band, data holder) */
async function distribution(
  ctx: ExecContext,
  condition: Concept,
  attr: "gender" | "ageBand" | "holder",
  label: string,
  name: (k: string) => string,
): Promise<RawResult> {
  const members = await conditionCohort(ctx, condition);
  const { root, cohort } = cohortRoot(ctx, "cohort", members);
  const ids = [...members].map((id) => ctx.index.indexOfPerson.get(id)!);
  const counts = tally(ctx.index, attr, ids);
  const cells = [...counts].map(([k, v]) => leaf(`${attr}:${k}`, v));
  cohort.groups!.push(cells);
  const all = tally(ctx.index, attr);
  // "other" and "unknown" are listed only when their count can be shown (listedOn); every other value always
  const optional = (c: CountNode) => ["other", "unknown"].includes(c.key.slice(attr.length + 1));
  const rows = cells.map((c) => {
    const row = { [attr]: name(c.key.slice(attr.length + 1)), ...counted(c, cohort) };
    return optional(c) ? listedOn(c, row) : row;
  });
  const optionalOnes = cells.filter(optional).map((c) => `"${name(c.key.slice(attr.length + 1))}"`);
  return {
    columns: [col(attr, label), ...countedColumns("Patients", "Share of cohort (%)")],
    rows,
    // the dashboard and the federated summary publish every value's persons
    roots: [root, ...[...counts.keys()].map((k, i) => partsOf(`all:${k}`, all.get(k)!, [cells[i]]))],
    cohort: { node: cohort, name: `patients with ${conceptLabel(condition)}` },
    unlisted: optionalOnes.length
      ? (k) =>
          `${optionalOnes.join(" and ")} ${optionalOnes.length > 1 ? "are listed only when their count" : "is listed only when its count"} can be shown (k = ${k}).`
      : undefined,
    plan: [
      CONDITION_STEP(condition),
      `persons (OMOPPerson, l4) grouped by ${attr === "holder" ? "careSiteSourceValue (the data holder)" : attr === "gender" ? "gender" : "age band at the extraction date"}`,
    ],
    interpretation: (show) =>
      `${show(cohort)} patients have ${conceptLabel(condition)}, split by ${label.toLowerCase()} as shown.`,
  };
}

async function topList(ctx: ExecContext, kind: "conditions" | "drugs", n = 10): Promise<RawResult> {
  const map = kind === "conditions" ? ctx.index.conditions : ctx.index.drugs;
  const all = allPersonIds(ctx).length;
  const root: CountNode = { key: "persons", value: all, groups: [] };
  // every code, by count: the first n whose count may be listed are (finalize)
  const ranked = [...map.values()].sort(
    (a, b) => b.persons.length - a.persons.length || a.code.localeCompare(b.code),
  );
  const dictKind = kind === "conditions" ? "condition" : "drug";
  const rows = ranked.map((s) => {
    const node = subgroup(root, s.code, s.persons.length);
    return listedOn(node, { name: ctx.dict.name(dictKind, s.code), code: s.code, ...counted(node, root) });
  });
  return {
    columns: [
      col("name", kind === "conditions" ? "Condition" : "Drug"),
      col("code", kind === "conditions" ? "SNOMED CT" : "RxNorm", "code"),
      ...countedColumns("Patients", "Share of all patients (%)"),
    ],
    rows,
    roots: [root],
    cohort: { node: root, name: "patients in all" },
    limit: n,
    unlisted: (k) => unlistedNote(kind, k),
    plan: [
      `${kind === "conditions" ? "ConditionOccurrence" : "DrugExposure"} (l4) grouped by source code, distinct personId; names from ${kind === "conditions" ? "SnomedConcept" : "RxNormConcept"} (l5)`,
    ],
    interpretation: (show, _shown, listed) =>
      `The ${listed} most frequent ${kind} among ${show(root)} patients, by number of patients.`,
  };
}

export const TEMPLATES: Template[] = [
  {
    id: "pharmacovigilance",
    title: "Adverse outcome after a drug, in patients with a condition",
    description:
      "Pharmacovigilance signal: among patients diagnosed with a condition, compares how often an outcome occurs in those treated with a drug (and whether after the first exposure) against those not treated and the background population.",
    intent: words(
      "observed|seen|reported|found|recorded|occur\\w*|cause[sd]?|causing|risk|develop\\w*|get|got|suffer\\w*|adverse|side effects?|after|lead to|linked|associated|signal|experience\\w*",
    ),
    patterns: [
      re(
        `(?:is|are|was|were|has|have)\\s+(?:there\\s+)?(?:any\\s+)?(?<outcome>.+?)\\s+(?:been\\s+)?(?:observed|seen|reported|found|recorded|occurring|present)\\s+(?:in|among|for)\\s+${P}\\s+(?:who\\s+(?:were|are|have\\s+been)\\s+)?${TREATED}\\s+(?:with\\s+|to\\s+)?(?<drug>.+?)\\s+(?:and\\s+|who\\s+(?:were|are|have\\s+been)\\s+|that\\s+(?:were|are)\\s+)?(?:diagnosed\\s+with|with\\s+a\\s+diagnosis\\s+of|with)\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(
        `(?:is|are|was|were|has|have)\\s+(?:there\\s+)?(?:any\\s+)?(?<outcome>.+?)\\s+(?:been\\s+)?(?:observed|seen|reported|found|recorded|occurring|present)\\s+(?:in|among|for)\\s+${P}\\s+(?:diagnosed\\s+with|with)\\s+(?:an?\\s+)?(?<condition>.+?)\\s+(?:and\\s+|who\\s+(?:were|are)\\s+)?${TREATED}\\s+(?:with\\s+|to\\s+)?(?<drug>.+)`,
      ),
      re(
        `(?:does|do|can|did)\\s+(?<drug>.+?)\\s+(?:cause|lead\\s+to|increase\\s+the\\s+risk\\s+of|trigger)\\s+(?<outcome>.+?)\\s+(?:in|among)\\s+(?:${P}\\s+)?(?:with\\s+|diagnosed\\s+with\\s+)?(?<condition>.+?)(?:\\s+${P})?`,
      ),
    ],
    params: [
      { name: "outcome", kind: "condition", description: "the adverse outcome (SNOMED CT)" },
      { name: "drug", kind: "drug", description: "the suspected drug (RxNorm)" },
      {
        name: "condition",
        kind: "condition",
        description: "the indication the patients were diagnosed with (SNOMED CT)",
        marker: {
          before:
            /\b(?:with|diagnosed(?: with)?|having|who have|who had|that have|suffering from|for|among)$/,
          after: /^(?:patients|people|persons|subjects|cases)$/,
        },
      },
    ],
    layers: ["l5", "l4"],
    examples: [
      "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?",
      "Does ciprofloxacin cause tendon rupture in patients with UTI?",
    ],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH DISTINCT dx.personId AS personId
OPTIONAL MATCH (:RxNormConcept {code: $drug})<-[:CODED_BY]-(de:DrugExposure {personId: personId})
WITH personId, min(de.drugExposureStartDate) AS firstExposure
OPTIONAL MATCH (:SnomedConcept {code: $outcome})<-[:CODED_BY]-(o:ConditionOccurrence {personId: personId})
WITH personId, firstExposure, min(o.conditionStartDate) AS outcomeDate
RETURN firstExposure IS NOT NULL AS exposed,
       count(personId) AS patients,
       count(outcomeDate) AS withOutcome,
       sum(CASE WHEN outcomeDate >= firstExposure THEN 1 ELSE 0 END) AS outcomeAfterExposure`,
    async run(ctx, { outcome, drug, condition }) {
      const [diagnosed, exposed, outcomes] = await Promise.all([
        personsCodedBy(ctx, condition, "ConditionOccurrence"),
        personsCodedBy(ctx, drug, "DrugExposure"),
        personsCodedBy(ctx, outcome, "ConditionOccurrence"),
      ]);
      const all = allPersonIds(ctx);
      let exp = 0,
        expOutcome = 0,
        expAfter = 0,
        unexp = 0,
        unexpOutcome = 0,
        others = 0,
        othersOutcome = 0;
      for (const id of all) {
        const o = outcomes.get(id);
        if (!diagnosed.has(id)) {
          others++;
          if (o !== undefined) othersOutcome++;
          continue;
        }
        const first = exposed.get(id);
        if (first !== undefined) {
          exp++;
          if (o !== undefined) {
            expOutcome++;
            if (o >= first) expAfter++;
          }
        } else {
          unexp++;
          if (o !== undefined) unexpOutcome++;
        }
      }
      const nExp: CountNode = { key: "exposed", value: exp, groups: [] };
      const nUnexp: CountNode = { key: "unexposed", value: unexp, groups: [] };
      const nCohort: CountNode = { key: "diagnosed", value: exp + unexp, groups: [[nExp, nUnexp]] };
      const nOthers: CountNode = { key: "others", value: others, groups: [] };
      const root: CountNode = { key: "persons", value: all.length, groups: [[nCohort, nOthers]] };
      const nExpOutcome = subgroup(nExp, "exposed:outcome", expOutcome);
      const nExpAfter = subgroup(nExpOutcome, "exposed:outcome:after", expAfter);
      const nUnexpOutcome = subgroup(nUnexp, "unexposed:outcome", unexpOutcome);
      const nOthersOutcome = subgroup(nOthers, "others:outcome", othersOutcome);
      const r = (part: CountNode, whole: CountNode) => rate(part, whole, 2);
      const rateExp = r(nExpOutcome, nExp);
      const rateBg = r(nOthersOutcome, nOthers);
      return {
        columns: [
          col("group", "Group"),
          col("patients", "Patients", COUNT),
          col("withOutcome", `With ${outcome.display}`, COUNT),
          col("afterExposure", "Outcome after first exposure", COUNT),
          col("rate", "Outcome rate (%)", "percent"),
        ],
        rows: [
          {
            group: `${condition.display} and treated with ${drug.display}`,
            patients: new CountCell(nExp),
            withOutcome: new CountCell(nExpOutcome),
            afterExposure: new CountCell(nExpAfter),
            rate: rateExp,
          },
          {
            group: `${condition.display}, not treated with ${drug.display}`,
            patients: new CountCell(nUnexp),
            withOutcome: new CountCell(nUnexpOutcome),
            afterExposure: null,
            rate: r(nUnexpOutcome, nUnexp),
          },
          {
            group: "all other patients (background)",
            patients: new CountCell(nOthers),
            withOutcome: new CountCell(nOthersOutcome),
            afterExposure: null,
            rate: rateBg,
          },
        ],
        roots: [
          root,
          partsOf("drug", exposed.size, [nExp]),
          partsOf("outcome", outcomes.size, [nExpOutcome, nUnexpOutcome, nOthersOutcome]),
          // the condition's co-occurring outcome (comorbidities)
          partsOf("diagnosed:outcome", expOutcome + unexpOutcome, [nExpOutcome, nUnexpOutcome]),
        ],
        cohort: { node: nCohort, name: `patients diagnosed with ${conceptLabel(condition)}` },
        plan: [
          CONDITION_STEP(condition),
          DRUG_STEP(drug),
          `(SnomedConcept {code: ${outcome.code}})<-[:CODED_BY]-(ConditionOccurrence) [l5 → l4]: distinct personId, first conditionStartDate`,
          "per person: exposed = a drug exposure; outcome after exposure = outcome start date on or after the first exposure start date",
        ],
        interpretation: (show, shown) => {
          const rr =
            shown(nExpOutcome) &&
            shown(nExp) &&
            shown(nOthersOutcome) &&
            shown(nOthers) &&
            rateExp.value &&
            rateBg.value
              ? ` — about ${Math.round((rateExp.value / rateBg.value) * 10) / 10} times the background rate`
              : "";
          return (
            `Among ${show(nExp)} patients diagnosed with ${conceptLabel(condition)} and treated with ${conceptLabel(drug)}, ` +
            `${show(nExpOutcome)} had ${conceptLabel(outcome)}, ${show(nExpAfter)} of them after their first exposure${rr}. ` +
            `Comparison: ${show(nUnexpOutcome)} of ${show(nUnexp)} diagnosed patients not treated with ${drug.display}, and ${show(nOthersOutcome)} of ${show(nOthers)} other patients. ` +
            "An observed association in routine data, not proof of causation."
          );
        },
      };
    },
  },
  {
    id: "condition-drug-count",
    title: "Patients with a condition treated with a drug",
    description: "How many patients diagnosed with a condition have an exposure to a drug.",
    intent: words(COUNTING),
    patterns: [
      re(
        `how\\s+many\\s+${P}\\s+${WITH}\\s+(?:an?\\s+)?(?<condition>.+?)\\s+(?:are|were|have\\s+been|get|got|receive|received)\\s+${TREATED}\\s+(?:with\\s+)?(?<drug>.+)`,
      ),
      re(
        `how\\s+many\\s+(?<condition>.+?)\\s+${P}\\s+(?:are|were|have\\s+been)\\s+${TREATED}\\s+(?:with\\s+)?(?<drug>.+)`,
      ),
    ],
    params: [
      { name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" },
      { name: "drug", kind: "drug", description: "drug (RxNorm)" },
    ],
    layers: ["l5", "l4"],
    examples: ["How many patients with type 2 diabetes are treated with metformin?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH collect(DISTINCT dx.personId) AS cohort
OPTIONAL MATCH (:RxNormConcept {code: $drug})<-[:CODED_BY]-(de:DrugExposure)
WHERE de.personId IN cohort
RETURN size(cohort) AS patients, count(DISTINCT de.personId) AS treated`,
    async run(ctx, { condition, drug }) {
      const cohortIds = await conditionCohort(ctx, condition);
      const exposed = await personsCodedBy(ctx, drug, "DrugExposure");
      const treated = [...cohortIds].filter((id) => exposed.has(id)).length;
      const { root, cohort } = cohortRoot(ctx, "cohort", cohortIds);
      const nTreated = subgroup(cohort, "treated", treated);
      return {
        columns: [
          col("condition", "Condition"),
          col("drug", "Drug"),
          col("patients", "Patients with the condition", COUNT),
          col("treated", "Treated with the drug", COUNT),
          col("share", "Share (%)", "percent"),
        ],
        rows: [
          {
            condition: condition.display,
            drug: drug.display,
            patients: new CountCell(cohort),
            treated: new CountCell(nTreated),
            share: rate(nTreated, cohort),
          },
        ],
        roots: [root, partsOf("drug", exposed.size, [nTreated])],
        cohort: { node: cohort, name: `patients with ${conceptLabel(condition)}` },
        plan: [CONDITION_STEP(condition), DRUG_STEP(drug), "intersection of the two person sets"],
        interpretation: (show) =>
          `${show(nTreated)} of ${show(cohort)} patients with ${conceptLabel(condition)} were treated with ${conceptLabel(drug)}.`,
      };
    },
  },
  {
    id: "measurement-by-condition",
    title: "A measurement in patients with a condition",
    description:
      "Mean latest value of a measurement and how many are above, within or below the reference range, in patients with a condition against all other patients.",
    intent: words(MEASURING),
    patterns: [
      re(
        `what\\s+(?:is|are)\\s+the\\s+(?:average|mean|typical)\\s+(?<measurement>.+?)\\s+(?:in|of|among|for)\\s+${P}\\s+${WITH}\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(
        `(?:average|mean)\\s+(?<measurement>.+?)\\s+(?:in|for|among)\\s+${P}\\s+${WITH}\\s+(?<condition>.+)`,
      ),
      re(
        `how\\s+(?:high|low)\\s+is\\s+(?:the\\s+)?(?<measurement>.+?)\\s+(?:in|of|among)\\s+${P}\\s+${WITH}\\s+(?<condition>.+)`,
      ),
    ],
    params: [
      { name: "measurement", kind: "measurement", description: "measurement (LOINC)" },
      { name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" },
    ],
    layers: ["l5", "l4"],
    examples: ["What is the average HbA1c in patients with type 2 diabetes?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH collect(DISTINCT dx.personId) AS cohort
MATCH (:LoincCode {code: $measurement})<-[:CODED_BY]-(m:Measurement)
WITH cohort, m.personId AS personId, m ORDER BY m.measurementDatetime DESC
WITH cohort, personId, head(collect(m)) AS latest
RETURN personId IN cohort AS inCohort, count(*) AS measured, avg(latest.valueAsNumber) AS mean,
       stDev(latest.valueAsNumber) AS sd,
       sum(CASE WHEN latest.valueAsNumber > latest.rangeHigh THEN 1 ELSE 0 END) AS above,
       sum(CASE WHEN latest.valueAsNumber < latest.rangeLow THEN 1 ELSE 0 END) AS below`,
    async run(ctx, { measurement, condition }) {
      const members = await conditionCohort(ctx, condition);
      return measurementComparison(ctx, measurement, `patients with ${condition.display}`, members, [
        CONDITION_STEP(condition),
      ]);
    },
  },
  {
    id: "measurement-by-drug",
    title: "A measurement in patients treated with a drug",
    description:
      "Mean latest value of a measurement and its reference-range flags in patients exposed to a drug against all other patients (e.g. INR on warfarin, ALT on methotrexate).",
    intent: words(MEASURING),
    patterns: [
      re(
        `what\\s+(?:is|are)\\s+the\\s+(?:average|mean|typical)\\s+(?<measurement>.+?)\\s+(?:in|of|among|for)\\s+${P}\\s+(?:who\\s+(?:are|were)\\s+)?${TREATED}\\s+(?:with\\s+)?(?<drug>.+)`,
      ),
      re(
        `(?:average|mean)\\s+(?<measurement>.+?)\\s+(?:in|for|among)\\s+${P}\\s+${TREATED}\\s+(?:with\\s+)?(?<drug>.+)`,
      ),
    ],
    params: [
      { name: "measurement", kind: "measurement", description: "measurement (LOINC)" },
      { name: "drug", kind: "drug", description: "drug (RxNorm)" },
    ],
    layers: ["l5", "l4"],
    examples: ["What is the average INR in patients treated with warfarin?"],
    cypher: `MATCH (:RxNormConcept {code: $drug})<-[:CODED_BY]-(de:DrugExposure)
WITH collect(DISTINCT de.personId) AS cohort
MATCH (:LoincCode {code: $measurement})<-[:CODED_BY]-(m:Measurement)
WITH cohort, m.personId AS personId, m ORDER BY m.measurementDatetime DESC
WITH cohort, personId, head(collect(m)) AS latest
RETURN personId IN cohort AS inCohort, count(*) AS measured, avg(latest.valueAsNumber) AS mean,
       stDev(latest.valueAsNumber) AS sd`,
    async run(ctx, { measurement, drug }) {
      const members = await drugCohort(ctx, drug);
      return measurementComparison(ctx, measurement, `patients treated with ${drug.display}`, members, [
        DRUG_STEP(drug),
      ]);
    },
  },
  {
    id: "drugs-for-condition",
    title: "Drugs prescribed for a condition",
    description:
      "The drugs of the medication requests whose reason is the condition (FHIR MedicationRequest -TREATS-> Condition), by number of patients.",
    intent: words(DRUG_WORDS),
    patterns: [
      re(
        `(?:which|what)\\s+(?:drugs|medications|medicines|treatments|antibiotics)\\s+(?:are|were|is)\\s+(?:prescribed|used|given)\\s+(?:for|to\\s+treat|against)\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(`how\\s+(?:is|are)\\s+(?<condition>.+?)\\s+treated`),
      re(
        `(?:which|what)\\s+(?:drugs|medications|medicines)\\s+do\\s+${P}\\s+with\\s+(?<condition>.+?)\\s+(?:take|get|receive)`,
      ),
    ],
    params: [{ name: "condition", kind: "condition", description: "the condition treated (SNOMED CT)" }],
    layers: ["l5", "l3"],
    examples: ["Which drugs are prescribed for hypertension?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(c:Condition)<-[:TREATS]-(mr:MedicationRequest)-[:CODED_BY]->(rx:RxNormConcept)
RETURN rx.display AS drug, rx.code AS rxnorm, rx.atcCode AS atc,
       count(DISTINCT mr.patientId) AS patients, count(mr) AS prescriptions
ORDER BY patients DESC`,
    async run(ctx, { condition }) {
      const { patients, root, cohort } = await patientCohort(ctx, condition);
      const requests = await findAll(ctx.graph, "MedicationRequest", { reasonCode: condition.code });
      const byDrug = new Map<string, { patients: Set<string>; prescriptions: number }>();
      for (const r of requests) {
        const code = str(r.properties.code);
        const patient = str(r.properties.patientId);
        if (!code || !patient || !patients.has(patient)) continue;
        let e = byDrug.get(code);
        if (!e) byDrug.set(code, (e = { patients: new Set(), prescriptions: 0 }));
        e.patients.add(patient);
        e.prescriptions++;
      }
      const rows = [...byDrug]
        .sort((a, b) => b[1].patients.size - a[1].patients.size || a[0].localeCompare(b[0]))
        .map(([code, e]) => {
          const node = subgroup(cohort, `drug:${code}`, e.patients.size);
          const c = ctx.dict.get("drug", code);
          return listedOn(node, {
            drug: c?.display ?? code,
            rxnorm: code,
            atc: c?.atc ?? null,
            patients: new CountCell(node),
            prescriptions: new DerivedCell(e.prescriptions, [node], true),
            share: rate(node, cohort),
          });
        });
      return {
        columns: [
          col("drug", "Drug"),
          col("rxnorm", "RxNorm", "code"),
          col("atc", "ATC", "code"),
          col("patients", "Patients", COUNT),
          col("prescriptions", "Prescriptions", COUNT),
          col("share", "Share of patients with the condition (%)", "percent"),
        ],
        rows,
        roots: [root],
        cohort: { node: cohort, name: `patients with ${conceptLabel(condition)}` },
        unlisted: (k) => unlistedNote("drugs", k),
        plan: [
          `(SnomedConcept {code: ${condition.code}})<-[:CODED_BY]-(Condition) [l5 → l3]: distinct patientId`,
          `(MedicationRequest {reasonCode: ${condition.code}}) [l3] — the requests whose TREATS edge points at such a condition — grouped by RxNorm code`,
        ],
        interpretation: (show, _shown, listed) =>
          `${listed} drugs were prescribed for ${conceptLabel(condition)} among ${show(cohort)} patients with the condition.`,
      };
    },
  },
  {
    id: "comorbidities",
    title: "Conditions that co-occur with a condition",
    description: "The ten conditions most often recorded in patients who have the given condition.",
    intent: words(
      "co-?occur\\w*|comorbid\\w*|other (?:conditions|diseases|diagnoses|illnesses|disorders)|alongside|together with|besides|in addition to|also have|also had|associated conditions",
    ),
    patterns: [
      re(
        `(?:which|what)\\s+(?:other\\s+)?(?:conditions|diseases|diagnoses|comorbidities)\\s+(?:co-?occur|occur\\s+together|are\\s+common|are\\s+associated|are\\s+seen)\\s+(?:with|in\\s+${P}\\s+with)\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(
        `(?:what\\s+are\\s+the\\s+)?(?:common\\s+)?comorbidities\\s+(?:of|in|with)\\s+(?:${P}\\s+with\\s+)?(?<condition>.+)`,
      ),
    ],
    params: [{ name: "condition", kind: "condition", description: "the index condition (SNOMED CT)" }],
    layers: ["l5", "l4"],
    examples: ["Which conditions co-occur with heart failure?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH collect(DISTINCT dx.personId) AS cohort
MATCH (other:ConditionOccurrence)-[:CODED_BY]->(c:SnomedConcept)
WHERE other.personId IN cohort AND c.code <> $condition
RETURN c.display AS condition, c.code AS snomed, count(DISTINCT other.personId) AS patients
ORDER BY patients DESC LIMIT 10`,
    async run(ctx, { condition }) {
      const members = await conditionCohort(ctx, condition);
      const idx = new Set([...members].map((id) => ctx.index.indexOfPerson.get(id)!));
      const { root, cohort } = cohortRoot(ctx, "cohort", members);
      const counts = [...ctx.index.conditions.values()]
        .filter((s) => s.code !== condition.code)
        .map((s) => ({
          code: s.code,
          all: s.persons.length,
          n: s.persons.reduce((acc, i) => acc + (idx.has(i) ? 1 : 0), 0),
        }))
        .filter((x) => x.n > 0)
        .sort((a, b) => b.n - a.n || a.code.localeCompare(b.code));
      // every co-occurring condition, by count: the first ten whose count may be listed are (finalize)
      const totals: CountNode[] = [];
      const rows = counts.map((x) => {
        const node = subgroup(cohort, `co:${x.code}`, x.n);
        totals.push(partsOf(`all:${x.code}`, x.all, [node]));
        return listedOn(node, {
          condition: ctx.dict.name("condition", x.code),
          snomed: x.code,
          ...counted(node, cohort),
        });
      });
      return {
        columns: [
          col("condition", "Condition"),
          col("snomed", "SNOMED CT", "code"),
          ...countedColumns("Patients", "Share of the cohort (%)"),
        ],
        rows,
        roots: [root, ...totals],
        cohort: { node: cohort, name: `patients with ${conceptLabel(condition)}` },
        limit: 10,
        unlisted: (k) => unlistedNote("conditions", k),
        plan: [
          CONDITION_STEP(condition),
          "the cohort's other ConditionOccurrence rows (l4, OMOP index of this graph version) grouped by SNOMED CT code; names from l5",
        ],
        interpretation: (show) =>
          `The conditions most often recorded alongside ${conceptLabel(condition)}, among ${show(cohort)} patients who have it.`,
      };
    },
  },
  {
    id: "gender-distribution",
    title: "Gender distribution of patients with a condition",
    description: "Patients with the condition by gender.",
    intent: words("gender|genders|sex|sexes|men|women|males?|females?"),
    patterns: [
      re(
        `(?:what\\s+is\\s+the\\s+)?(?:gender|sex)\\s+(?:distribution|split|breakdown|ratio)\\s+(?:of|among|in|for)\\s+(?:${P}\\s+${WITH}\\s+)?(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(
        `(?:how\\s+many\\s+)?(?:men\\s+and\\s+women|women\\s+and\\s+men|males\\s+and\\s+females)\\s+(?:have|with)\\s+(?<condition>.+)`,
      ),
    ],
    params: [{ name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" }],
    layers: ["l5", "l4"],
    examples: ["What is the gender distribution of patients with osteoporosis?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH DISTINCT dx.personId AS personId
MATCH (p:OMOPPerson {personId: personId})
RETURN p.genderSourceValue AS gender, count(p) AS patients`,
    run: (ctx, { condition }) => distribution(ctx, condition, "gender", "Gender", (k) => k),
  },
  {
    id: "age-distribution",
    title: "Age distribution of patients with a condition",
    description: "Patients with the condition by age band (age at the extraction date).",
    intent: words("age|ages|aged|old|older|younger|age bands?|age groups?"),
    patterns: [
      re(
        `(?:what\\s+is\\s+the\\s+)?age\\s+(?:distribution|breakdown|profile|structure)\\s+(?:of|among|in|for)\\s+(?:${P}\\s+${WITH}\\s+)?(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(`how\\s+old\\s+are\\s+${P}\\s+${WITH}\\s+(?:an?\\s+)?(?<condition>.+)`),
    ],
    params: [{ name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" }],
    layers: ["l5", "l4"],
    examples: ["How old are patients with heart failure?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH DISTINCT dx.personId AS personId
MATCH (p:OMOPPerson {personId: personId})
WITH 2025 - p.yearOfBirth AS age
RETURN CASE WHEN age < 30 THEN '18-29' WHEN age >= 80 THEN '80+' ELSE toString(age / 10 * 10) + '-' + toString(age / 10 * 10 + 9) END AS ageBand,
       count(*) AS patients`,
    run: (ctx, { condition }) => distribution(ctx, condition, "ageBand", "Age band", (k) => k),
  },
  {
    id: "holder-distribution",
    title: "Where patients with a condition are held",
    description: "Patients with the condition per data holder (each holder's secure processing environment).",
    intent: words(
      "data holders?|holders?|hospitals?|sites?|organi[sz]ations?|clinics?|where|providers?|centres?|centers?",
    ),
    patterns: [
      re(
        `(?:which|what)\\s+(?:data\\s+holders|hospitals|holders|sites|organisations|organizations|clinics)\\s+(?:have|hold|treat|see)\\s+(?:${P}\\s+${WITH}\\s+)?(?:an?\\s+)?(?<condition>.+?)(?:\\s+${P})?`,
      ),
      re(
        `where\\s+are\\s+(?:the\\s+)?${P}\\s+${WITH}\\s+(?:an?\\s+)?(?<condition>.+?)(?:\\s+(?:held|treated|recorded))?`,
      ),
    ],
    params: [{ name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" }],
    layers: ["l5", "l4", "l1"],
    examples: ["Which data holders have patients with COPD?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
WITH DISTINCT dx.personId AS personId
MATCH (p:OMOPPerson {personId: personId})
MATCH (h:Participant {slug: p.careSiteSourceValue})
RETURN h.displayName AS holder, count(p) AS patients`,
    run: (ctx, { condition }) => distribution(ctx, condition, "holder", "Data holder", holderName),
  },
  {
    id: "datasets-for-condition",
    title: "Datasets covering patients with a condition",
    description: "The HealthDCAT-AP datasets that include patients with the condition, and how many.",
    intent: words("datasets?|data sets?|catalogue|catalog"),
    patterns: [
      re(
        `(?:which|what)\\s+datasets\\s+(?:cover|include|contain|have|hold)\\s+(?:${P}\\s+${WITH}\\s+)?(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(`(?:which|what)\\s+datasets\\s+(?:are\\s+there\\s+)?(?:on|about|for)\\s+(?<condition>.+)`),
    ],
    params: [{ name: "condition", kind: "condition", description: "diagnosis (SNOMED CT)" }],
    layers: ["l5", "l3", "l2"],
    examples: ["Which datasets include patients with asthma?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(c:Condition)<-[:HAS_CONDITION]-(p:Patient)
WITH DISTINCT p
MATCH (d:HealthDataset)-[:INCLUDES]->(p)
RETURN d.title AS dataset, d.publisher AS publisher, count(p) AS patients
ORDER BY patients DESC`,
    async run(ctx, { condition }) {
      const { patients, root, cohort } = await patientCohort(ctx, condition);
      const datasets = await findAll(ctx.graph, "HealthDataset");
      const found: { d: (typeof datasets)[number]; n: number }[] = [];
      for (const d of datasets) {
        const included = await linked(ctx.graph, d.id, "INCLUDES", "out", 10_000_000);
        const n = included.reduce((s, p) => s + (patients.has(p.id) ? 1 : 0), 0);
        if (n > 0) found.push({ d, n });
      }
      found.sort((a, b) => b.n - a.n || a.d.id.localeCompare(b.d.id));
      const rows = found.map(({ d, n }) => {
        const node = subgroup(cohort, `dataset:${d.id}`, n);
        return listedOn(node, {
          dataset: str(d.properties.title) ?? d.id,
          id: d.id,
          publisher: str(d.properties.publisher) ?? null,
          ...counted(node, cohort),
        });
      });
      return {
        columns: [
          col("dataset", "Dataset"),
          col("id", "Id", "code"),
          col("publisher", "Publisher"),
          ...countedColumns("Patients with the condition", "Share of those patients (%)"),
        ],
        rows,
        roots: [root],
        cohort: { node: cohort, name: `patients with ${conceptLabel(condition)}` },
        unlisted: (k) => unlistedNote("datasets", k),
        plan: [
          `(SnomedConcept {code: ${condition.code}})<-[:CODED_BY]-(Condition) [l5 → l3]: distinct patientId`,
          "(HealthDataset)-[:INCLUDES]->(Patient) [l2 → l3] for each dataset of the catalogue, intersected with those patients",
        ],
        interpretation: (show, _shown, listed) =>
          `${listed} datasets of the catalogue include patients with ${conceptLabel(condition)} (${show(cohort)} patients have it).`,
      };
    },
  },
  {
    id: "icd10-mapping",
    title: "ICD-10 code of a condition",
    description: "The ICD-10 code a SNOMED CT concept maps to (MAPS_TO in the ontology layer).",
    intent: words("icd|icd-?10|icd 10"),
    patterns: [
      re(
        `(?:what\\s+is\\s+the\\s+|which\\s+is\\s+the\\s+)?icd-?\\s?10\\s+(?:code\\s+)?(?:for|of)\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(`(?:how\\s+(?:does|is)\\s+)?(?<condition>.+?)\\s+map(?:s|ped)?\\s+to\\s+icd-?\\s?10`),
    ],
    params: [
      { name: "condition", kind: "condition", description: "a condition (name, SNOMED CT or ICD-10 code)" },
    ],
    layers: ["l5"],
    examples: ["What is the ICD-10 code for urinary tract infection?"],
    cypher: `MATCH (s:SnomedConcept {code: $condition})-[:MAPS_TO]->(i:ICD10Code)
RETURN s.code AS snomed, s.display AS snomedDisplay, i.code AS icd10, i.display AS icd10Display, s.omopConceptId AS omopConceptId`,
    async run(ctx, { condition }) {
      const maps = await linked(ctx.graph, condition.nodeId, "MAPS_TO", "out", 10);
      return {
        columns: [
          col("snomed", "SNOMED CT", "code"),
          col("snomedDisplay", "SNOMED CT name"),
          col("icd10", "ICD-10", "code"),
          col("icd10Display", "ICD-10 name"),
          col("omopConceptId", "OMOP concept", "code"),
        ],
        rows: maps.map((m) => ({
          snomed: condition.code,
          snomedDisplay: condition.display,
          icd10: str(m.properties.code) ?? null,
          icd10Display: str(m.properties.display) ?? null,
          omopConceptId: condition.omopConceptId,
        })),
        roots: [],
        plan: [`(SnomedConcept {code: ${condition.code}})-[:MAPS_TO]->(ICD10Code) [l5]`],
        interpretation: () =>
          maps.length
            ? `${condition.display} (SNOMED CT ${condition.code}) maps to ICD-10 ${maps.map((m) => `${str(m.properties.code)} "${str(m.properties.display)}"`).join(", ")}.`
            : `${condition.display} (SNOMED CT ${condition.code}) has no ICD-10 mapping in the graph.`,
      };
    },
  },
  {
    id: "code-lookup",
    title: "Code of a clinical term",
    description: "Resolves a term to its SNOMED CT, ICD-10, RxNorm or LOINC code in the ontology layer.",
    intent: words("codes?|concepts?|snomed|rxnorm|loinc|coded|identifier"),
    patterns: [
      re(
        `(?:what\\s+is\\s+the|which\\s+is\\s+the|which)\\s+(?:code|concept|snomed(?:\\s+ct)?\\s+code|rxnorm\\s+code|loinc\\s+code|loinc)\\s+(?:for|of|is)\\s+(?:an?\\s+)?(?<term>.+)`,
      ),
      re(`(?:look\\s*up|find)\\s+(?:the\\s+)?(?:code|concept)\\s+(?:for|of)\\s+(?<term>.+)`),
    ],
    params: [{ name: "term", kind: "term", description: "any condition, drug or measurement name" }],
    layers: ["l5"],
    examples: ["What is the code for ciprofloxacin?", "What is the LOINC code for HbA1c?"],
    cypher: `MATCH (c) WHERE (c:SnomedConcept OR c:RxNormConcept OR c:LoincCode) AND c.code = $term
OPTIONAL MATCH (c)-[:MAPS_TO]->(i:ICD10Code)
RETURN labels(c)[0] AS system, c.code AS code, c.display AS display, i.code AS icd10, c.omopConceptId AS omopConceptId`,
    async run(_ctx, { term }) {
      return {
        columns: [
          col("system", "System"),
          col("code", "Code", "code"),
          col("display", "Name"),
          col("icd10", "ICD-10", "code"),
          col("omopConceptId", "OMOP concept", "code"),
          col("kind", "Kind"),
        ],
        rows: [
          {
            system: term.system,
            code: term.code,
            display: term.display,
            icd10: term.icd10?.code ?? null,
            omopConceptId: term.omopConceptId,
            kind: term.kind,
          },
        ],
        roots: [],
        plan: [
          `(${term.system === "SNOMED CT" ? "SnomedConcept" : term.system === "RxNorm" ? "RxNormConcept" : "LoincCode"} {code: ${term.code}}) [l5]`,
        ],
        interpretation: () =>
          `${term.display} is ${term.system} ${term.code}${term.icd10 ? ` (ICD-10 ${term.icd10.code})` : ""}${term.atc ? ` (ATC ${term.atc})` : ""}.`,
      };
    },
  },
  {
    id: "top-conditions",
    title: "Most common conditions",
    description: "The ten conditions recorded for the most patients (OMOP condition occurrences).",
    intent: new RegExp(
      `\\b(?:${RANKING})\\b.*\\b(?:conditions|diagnoses|diseases|illnesses|disorders|health problems)\\b|\\b(?:conditions|diagnoses|diseases)\\b.*\\b(?:most|top)\\b`,
    ),
    patterns: [
      re(
        `(?:what|which)\\s+(?:are|were)\\s+the\\s+(?:most\\s+common|most\\s+frequent|commonest|top|most\\s+prevalent)\\s+(?:conditions|diagnoses|diseases)`,
      ),
      re(`(?:the\\s+)?(?:most\\s+common|top|most\\s+frequent)\\s+(?:conditions|diagnoses|diseases)`),
    ],
    params: [],
    layers: ["l4", "l5"],
    examples: ["What are the most common conditions?"],
    cypher: `MATCH (o:ConditionOccurrence)-[:CODED_BY]->(c:SnomedConcept)
RETURN c.display AS name, c.code AS code, count(DISTINCT o.personId) AS patients
ORDER BY patients DESC LIMIT 10`,
    run: (ctx) => topList(ctx, "conditions"),
  },
  {
    id: "top-drugs",
    title: "Most prescribed drugs",
    description: "The ten drugs with exposures for the most patients (OMOP drug exposures).",
    intent: new RegExp(
      `\\b(?:${RANKING})\\b.*\\b(?:drugs|medications|medicines|meds|prescriptions)\\b|\\b(?:drugs|medications|medicines)\\b.*\\b(?:most|top)\\b`,
    ),
    patterns: [
      re(
        `(?:what|which)\\s+(?:are|were)\\s+the\\s+(?:most\\s+(?:common|commonly\\s+prescribed|frequently\\s+prescribed|prescribed|used)|top)\\s+(?:drugs|medications|medicines)`,
      ),
      re(
        `(?:which|what)\\s+(?:drugs|medications|medicines)\\s+are\\s+(?:prescribed|used)\\s+(?:the\\s+)?most(?:\\s+often)?`,
      ),
    ],
    params: [],
    layers: ["l4", "l5"],
    examples: ["What are the most prescribed drugs?"],
    cypher: `MATCH (e:DrugExposure)-[:CODED_BY]->(d:RxNormConcept)
RETURN d.display AS name, d.code AS code, count(DISTINCT e.personId) AS patients
ORDER BY patients DESC LIMIT 10`,
    run: (ctx) => topList(ctx, "drugs"),
  },
  {
    id: "drug-count",
    title: "Patients treated with a drug",
    description: "How many patients have an exposure to a drug.",
    intent: words(COUNTING),
    patterns: [
      re(
        `how\\s+many\\s+${P}\\s+(?:are\\s+|were\\s+|have\\s+been\\s+)?${TREATED}\\s+(?:with\\s+|to\\s+)?(?<drug>.+)`,
      ),
      re(`how\\s+many\\s+${P}\\s+(?:take|took|use|used|receive|received|get|got)\\s+(?<drug>.+)`),
    ],
    params: [{ name: "drug", kind: "drug", description: "drug (RxNorm)" }],
    layers: ["l5", "l4"],
    examples: ["How many patients are treated with atorvastatin?"],
    cypher: `MATCH (:RxNormConcept {code: $drug})<-[:CODED_BY]-(de:DrugExposure)
RETURN count(DISTINCT de.personId) AS patients, count(de) AS exposures`,
    async run(ctx, { drug }) {
      const name = conceptLabel(drug);
      return countRow(ctx, await drugCohort(ctx, drug), "exposed", `patients treated with ${name}`, {
        cells: [
          [col("drug", "Drug"), drug.display],
          [col("rxnorm", "RxNorm", "code"), drug.code],
          [col("atc", "ATC", "code"), drug.atc ?? null],
        ],
        plan: DRUG_STEP(drug),
        says: `were treated with ${name}`,
      });
    },
  },
  {
    id: "condition-count",
    title: "Patients with a condition",
    description: "How many patients have a condition recorded.",
    intent: words(COUNTING),
    patterns: [
      re(
        `how\\s+many\\s+${P}\\s+(?:have|had|has|with|are\\s+diagnosed\\s+with|were\\s+diagnosed\\s+with|have\\s+been\\s+diagnosed\\s+with|suffer\\s+from|have\\s+had)\\s+(?:an?\\s+)?(?<condition>.+)`,
      ),
      re(`how\\s+common\\s+is\\s+(?:an?\\s+)?(?<condition>.+)`),
      re(`(?:number|count)\\s+of\\s+${P}\\s+with\\s+(?:an?\\s+)?(?<condition>.+)`),
    ],
    params: [
      { name: "condition", kind: "condition", description: "diagnosis (SNOMED CT, or an ICD-10 code)" },
    ],
    layers: ["l5", "l4"],
    examples: ["How many patients have asthma?"],
    cypher: `MATCH (:SnomedConcept {code: $condition})<-[:CODED_BY]-(dx:ConditionOccurrence)
RETURN count(DISTINCT dx.personId) AS patients`,
    async run(ctx, { condition }) {
      const name = conceptLabel(condition);
      return countRow(ctx, await conditionCohort(ctx, condition), "cohort", `patients with ${name}`, {
        cells: [
          [col("condition", "Condition"), condition.display],
          [col("snomed", "SNOMED CT", "code"), condition.code],
          [col("icd10", "ICD-10", "code"), condition.icd10?.code ?? null],
        ],
        plan: CONDITION_STEP(condition),
        says: `have ${name} recorded`,
      });
    },
  },
];

/** the template as GET /api/nlq lists it */
export function describeTemplate(t: Template) {
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    patterns: t.patterns.map((p) => p.source),
    examples: t.examples,
    parameters: t.params.map(({ name, kind, description }) => ({ name, kind, description })),
    layers: t.layers,
    cypher: t.cypher,
  };
}
