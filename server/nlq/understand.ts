/**
 * Understanding a question that no template pattern matches word for word: the question is put in
 * a canonical form (lower case, contractions opened, courtesy and lead-in words dropped, articles
 * dropped), the concepts it names are found in it (longest phrase first, by code, curated synonym
 * or exact name only, with everyday word forms such as "diabetics" read as "diabetes"), and the
 * template is chosen whose intent words occur in the question and whose parameters the concepts
 * found fill exactly (kinds and number). Each parameter takes the concept of its kind in the
 * order of the question, unless the parameter names the words that introduce it (`marker`).
 *
 * Free text still never reaches a query: what a template runs is the concepts' codes.
 */
import { resolveTerm, type ConceptDictionary, type ConceptKind, type Resolution } from "../analytics";
import type { Template } from "./templates";

const CONTRACTIONS: [RegExp, string][] = [
  [/\b(what|how|who|where|which|that|there|it)'s\b/g, "$1 is"],
  [/\b(what|how|who|where|which)'re\b/g, "$1 are"],
  [/\b(do|does|did|is|are|was|were|have|has)n't\b/g, "$1 not"],
  [/\bi'd like to\b/g, "i would like to"],
  // a possessive names the thing itself: "ciprofloxacin's code"
  [/\b(\w+)'s\b/g, "$1"],
];

/** words that ask politely or lead in, and say nothing about what is asked */
const LEAD_IN =
  /^(?:(?:please|kindly|so|ok|okay|hi|hello|hey)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell\s+me|show\s+me|give\s+me|list|find(?:\s+out)?|check)?\s*|(?:tell|show|give)\s+me\s+|(?:i\s+(?:want|would\s+like|wish)\s+to\s+know|i\s+wonder|do\s+you\s+know|let\s+me\s+know|find\s+out)\s+)+/;
const TRAIL =
  /\s+(?:please|in\s+(?:the|our|this)\s+(?:data(?:set)?|data\s+space|dataspace|graph|population))$/;
const ARTICLES = new Set(["a", "an", "the"]);

/** the question in canonical form: the text intents are matched on and concepts are found in */
export function canonicalQuestion(question: string): string {
  let q = question.toLowerCase().normalize("NFKC").replace(/[’`´]/g, "'");
  for (const [from, to] of CONTRACTIONS) q = q.replace(from, to);
  q = q
    .replace(/[?!;:"“”()[\]{}/,]+/g, " ")
    .replace(/\.(?!\d)/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  q = q.replace(LEAD_IN, "").replace(TRAIL, "").trim();
  return q
    .split(" ")
    .filter((w) => !ARTICLES.has(w))
    .join(" ");
}

/** what a person with a condition is called, read as the condition ("type 2 diabetics") */
const PERSON_FORMS: Record<string, string> = {
  diabetic: "diabetes",
  diabetics: "diabetes",
  asthmatic: "asthma",
  asthmatics: "asthma",
  hypertensive: "hypertension",
  hypertensives: "hypertension",
  epileptic: "epilepsy",
  epileptics: "epilepsy",
  anaemic: "anaemia",
  anemic: "anemia",
  migraineurs: "migraine",
  gouty: "gout",
};

/** a phrase's word forms to try: as written, the person form read as the condition, a plural's singular */
function formsOf(words: string[]): string[] {
  const last = words[words.length - 1];
  const out = [words.join(" ")];
  if (PERSON_FORMS[last]) out.push([...words.slice(0, -1), PERSON_FORMS[last]].join(" "));
  if (last.length > 3 && last.endsWith("s") && !last.endsWith("ss"))
    out.push([...words.slice(0, -1), last.slice(0, -1)].join(" "));
  return out;
}

export interface Mention {
  kind: ConceptKind;
  resolution: Resolution;
  /** token positions in the canonical question: [start, end) */
  start: number;
  end: number;
}

const KINDS: ConceptKind[] = ["condition", "drug", "measurement"];
const STRICT = new Set<Resolution["via"]>(["code", "icd10", "atc", "synonym", "name"]);
const MAX_WORDS = 6;

/** the concept the longest phrase from token `i` names, by code, synonym or exact name */
function mentionAt(tokens: string[], i: number, dict: ConceptDictionary): Mention | null {
  for (let n = Math.min(MAX_WORDS, tokens.length - i); n >= 1; n--)
    for (const form of formsOf(tokens.slice(i, i + n)))
      for (const kind of KINDS) {
        const r = resolveTerm(dict, kind, form);
        if (r && STRICT.has(r.via))
          return { kind, resolution: { ...r, term: tokens.slice(i, i + n).join(" ") }, start: i, end: i + n };
      }
  return null;
}

/** the concepts a canonical question names: longest phrase first, no two overlapping */
export function mentionsIn(canonical: string, dict: ConceptDictionary): Mention[] {
  const tokens = canonical.split(" ").filter(Boolean);
  const out: Mention[] = [];
  for (let i = 0; i < tokens.length;) {
    const found = mentionAt(tokens, i, dict);
    if (found) out.push(found);
    i = found ? found.end : i + 1;
  }
  return out;
}

function fill(template: Template, mentions: Mention[], tokens: string[]): Record<string, Resolution> | null {
  if (template.params.length !== mentions.length) return null;
  const left = [...mentions];
  const params: Record<string, Resolution> = {};
  const fits = (p: Template["params"][number], m: Mention) => p.kind === "term" || p.kind === m.kind;
  // parameters that name the words introducing them choose first
  const ordered = [...template.params].sort((a, b) => Number(!!b.marker) - Number(!!a.marker));
  for (const p of ordered) {
    let idx = -1;
    if (p.marker) {
      idx = left.findIndex((m) => {
        if (!fits(p, m)) return false;
        const before = tokens.slice(Math.max(0, m.start - 3), m.start).join(" ");
        const after = tokens.slice(m.end, m.end + 1).join(" ");
        return p.marker!.before.test(before) || (p.marker!.after?.test(after) ?? false);
      });
    }
    if (idx < 0) idx = left.findIndex((m) => fits(p, m));
    if (idx < 0) return null;
    params[p.name] = left[idx].resolution;
    left.splice(idx, 1);
  }
  return params;
}

/**
 * The first template (most parameters first, then in the catalogue's order) whose intent words
 * occur in the question and whose parameters the concepts named in it fill exactly.
 */
export function matchByMeaning(
  question: string,
  dict: ConceptDictionary,
  candidates: Template[],
): { template: Template; params: Record<string, Resolution> } | null {
  const canonical = canonicalQuestion(question);
  if (!canonical) return null;
  const tokens = canonical.split(" ");
  const mentions = mentionsIn(canonical, dict);
  // a stable sort: templates with as many parameters keep the catalogue's order
  for (const t of [...candidates].sort((a, b) => b.params.length - a.params.length)) {
    if (!t.intent.test(canonical)) continue;
    const params = fill(t, mentions, tokens);
    if (params) return { template: t, params };
  }
  return null;
}
