/**
 * Checks on Cypher text that did not come from our own templates (the language back end's
 * proposals). Nothing from a proxy is run unless it passes `checkReadOnly` AND maps onto the
 * shape of one of our templates (`shapeOf` / `matchShape`); the template then runs with the
 * proxy's values resolved to codes, so its answer goes through the same ODRL scope and k
 * threshold as any other. Arbitrary read-only Cypher is shown, never run: its result could be
 * person-level rows, which no k threshold can protect.
 *
 * The read-only check is deliberately conservative (a false refusal costs an answer, a false
 * acceptance could cost data): after removing comments and literals it refuses every clause of
 * FORBIDDEN (APOC: some of it writes or reaches the network), any procedure CALL but
 * READ_ONLY_PROCEDURES, and more than one statement.
 */

const FORBIDDEN: [RegExp, string][] = [
  [/\bapoc\s*\./i, "APOC procedures and functions"],
  [/\bdbms\s*\./i, "dbms.* procedures"],
  [/\bgds\s*\./i, "Graph Data Science procedures"],
  [/\bcreate\b/i, "CREATE"],
  [/\bmerge\b/i, "MERGE"],
  [/\bdetach\b/i, "DETACH DELETE"],
  [/\bdelete\b/i, "DELETE"],
  [/\bset\b/i, "SET"],
  [/\bremove\b/i, "REMOVE"],
  [/\bdrop\b/i, "DROP"],
  [/\bforeach\b/i, "FOREACH"],
  [/\bload\s+csv\b/i, "LOAD CSV"],
  [/\bperiodic\s+commit\b/i, "USING PERIODIC COMMIT"],
  [/\bin\s+transactions\b/i, "CALL … IN TRANSACTIONS"],
  [/\balter\b/i, "ALTER"],
  [/\bgrant\b/i, "GRANT"],
  [/\bdeny\b/i, "DENY"],
  [/\brevoke\b/i, "REVOKE"],
  [/\bterminate\b/i, "TERMINATE"],
  [/\b(?:start|stop)\s+database\b/i, "START/STOP DATABASE"],
  [/\bshow\b/i, "SHOW (administration)"],
  [/^\s*use\b/i, "USE (database selection)"],
];

const READ_ONLY_PROCEDURES = new Set([
  "db.labels",
  "db.relationshiptypes",
  "db.propertykeys",
  "db.schema.visualization",
  "db.schema.nodetypeproperties",
  "db.schema.reltypeproperties",
]);

/** removes comments, string literals and quoted identifiers, so keywords inside them do not count */
export function stripLiterals(cypher: string): string {
  let out = "";
  let i = 0;
  while (i < cypher.length) {
    const ch = cypher[i];
    const next = cypher[i + 1];
    if (ch === "/" && next === "/") {
      while (i < cypher.length && cypher[i] !== "\n") i++;
      out += " ";
    } else if (ch === "/" && next === "*") {
      const end = cypher.indexOf("*/", i + 2);
      i = end < 0 ? cypher.length : end + 2;
      out += " ";
    } else if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      while (j < cypher.length && cypher[j] !== ch) j += cypher[j] === "\\" ? 2 : 1;
      out += ch === "`" ? "q" : "''";
      i = j + 1;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

export function checkReadOnly(cypher: unknown): { ok: true } | { ok: false; reason: string } {
  if (typeof cypher !== "string" || !cypher.trim()) return { ok: false, reason: "no query text" };
  if (cypher.length > 10_000) return { ok: false, reason: "the query is longer than 10,000 characters" };
  const text = stripLiterals(cypher).trim().replace(/;\s*$/, "");
  if (text.includes(";")) return { ok: false, reason: "more than one statement" };
  for (const [re, name] of FORBIDDEN)
    if (re.test(text)) return { ok: false, reason: `${name} is not allowed (the query must be read-only)` };
  for (const m of text.matchAll(/\bcall\s+([a-z_][\w.]*)/gi)) {
    const proc = m[1].toLowerCase();
    if (!READ_ONLY_PROCEDURES.has(proc))
      return {
        ok: false,
        reason: `CALL ${m[1]} is not allowed (only read-only schema procedures may be called)`,
      };
  }
  if (!/^(?:optional\s+match|match|with|unwind|return|call)\b/i.test(text)) {
    return { ok: false, reason: "the query must start with MATCH, OPTIONAL MATCH, WITH, UNWIND or RETURN" };
  }
  if (!/\breturn\b/i.test(text)) return { ok: false, reason: "the query has no RETURN clause" };
  return { ok: true };
}

/** the query with every literal and $parameter replaced by ?, whitespace and case normalised, and those values in order */
export function shapeOf(cypher: string) {
  const values: ({ literal: string | number } | { param: string })[] = [];
  let out = "";
  let i = 0;
  const src = cypher.replace(/\/\/[^\n]*/g, " ").replace(/\/\*[\s\S]*?\*\//g, " ");
  while (i < src.length) {
    const ch = src[i];
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      let lit = "";
      while (j < src.length && src[j] !== ch) {
        if (src[j] === "\\" && j + 1 < src.length) {
          lit += src[j + 1];
          j += 2;
        } else lit += src[j++];
      }
      values.push({ literal: lit });
      out += " ? ";
      i = j + 1;
    } else if (ch === "$" && /[A-Za-z_]/.test(src[i + 1] ?? "")) {
      let j = i + 1;
      while (j < src.length && /\w/.test(src[j])) j++;
      values.push({ param: src.slice(i + 1, j) });
      out += " ? ";
      i = j;
    } else if (/\d/.test(ch) && !/[\w.]/.test(src[i - 1] ?? "")) {
      let j = i;
      while (j < src.length && /[\d.]/.test(src[j])) j++;
      values.push({ literal: Number(src.slice(i, j)) });
      out += " ? ";
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  const skeleton = out
    .replace(/([(){}[\],:<>=\-+*|])/g, " $1 ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/ ;$/, "")
    .toLowerCase();
  return { skeleton, values };
}

/**
 * When `candidate` has the shape of `template`, the template's parameters with the candidate's
 * values at the same places (literal template values must be equal); otherwise null.
 */
export function matchShape(
  template: string,
  candidate: string,
  candidateParams: Record<string, unknown> = {},
): Record<string, string> | null {
  const t = shapeOf(template);
  const c = shapeOf(candidate);
  if (t.skeleton !== c.skeleton || t.values.length !== c.values.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < t.values.length; i++) {
    const tv = t.values[i];
    const cv = c.values[i];
    let value: unknown;
    if ("param" in cv) {
      value = candidateParams[cv.param];
      if (value === undefined) return null;
    } else value = cv.literal;
    if ("literal" in tv) {
      if (String(tv.literal) !== String(value)) return null;
      continue;
    }
    if (typeof value !== "string" && typeof value !== "number") return null;
    const s = String(value);
    if (out[tv.param] !== undefined && out[tv.param] !== s) return null;
    out[tv.param] = s;
  }
  return out;
}
