import { DIRECT_IDENTIFIER_KEYS, type Viewer } from "./policy";
import { carriesStoredPersonId } from "./redact";

/**
 * Tables of results (natural-language answers, drill-downs): for a viewer without identities,
 * columns that hold direct identifiers or stored person-level ids are dropped. The templates
 * answer aggregates only; this is the rule applied to every answer whatever produced it.
 */

type Cell = string | number | null;

/** a person-describing column: a direct identifier key other than a concept's `name` */
const PERSON_KEYS = new Set(DIRECT_IDENTIFIER_KEYS.filter((k) => k !== "name"));

export function minimiseTable<C extends { key: string }, R extends Record<string, Cell>>(
  viewer: Viewer,
  table: { columns: C[]; rows: R[] },
): { columns: C[]; rows: R[]; dropped: string[] } {
  if (viewer.identities === "all") return { ...table, dropped: [] };
  const personRows = table.columns.some((c) => PERSON_KEYS.has(c.key) || c.key === "patientId");
  const drop = new Set<string>();
  for (const c of table.columns) {
    if (PERSON_KEYS.has(c.key) || (c.key === "name" && personRows)) drop.add(c.key);
    else if (
      table.rows.some((r) => typeof r[c.key] === "string" && carriesStoredPersonId(r[c.key] as string))
    )
      drop.add(c.key);
  }
  if (!drop.size) return { ...table, dropped: [] };
  return {
    columns: table.columns.filter((c) => !drop.has(c.key)),
    rows: table.rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !drop.has(k))) as R),
    dropped: [...drop],
  };
}
