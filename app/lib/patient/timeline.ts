/**
 * The patient timeline: encounters in date order, each carrying the conditions, observations and
 * medication requests recorded at it; items that name no known encounter become events of their
 * own. Field names follow the synthetic FHIR records (server/graph/synthetic/fhir.ts); anything
 * else falls back to generic keys (display, code, date, …) so other sources still render.
 */

export type Item = Record<string, unknown>;
export type ItemKind = "condition" | "observation" | "medication";

export interface TimelineEvent {
  /** "encounter" or a lone item */
  kind: "encounter" | ItemKind;
  id: string;
  date: string | null;
  end: string | null;
  title: string;
  subtitle: string | null;
  items: TimelineItem[];
  raw: Item | null;
}

const s = (v: unknown): string | null =>
  typeof v === "string" && v.trim() ? v : typeof v === "number" ? String(v) : null;
const first = (o: Item, keys: readonly string[]) => keys.map((k) => s(o[k])).find(Boolean) ?? null;

const DATE_KEYS: Record<ItemKind | "encounter", readonly string[]> = {
  encounter: ["periodStart", "start", "date", "effectiveDateTime"],
  condition: ["onsetDate", "recordedDate", "onsetDateTime", "date"],
  observation: ["effectiveDateTime", "effectiveDate", "issued", "date"],
  medication: ["authoredOn", "startDate", "date"],
};
const TITLE_KEYS = ["display", "name", "title", "code"] as const;

export const dateOf = (o: Item, kind: ItemKind | "encounter") => first(o, DATE_KEYS[kind]);

/** UCUM codes as people write them */
const UNITS: Record<string, string> = {
  Cel: "°C",
  "mm[Hg]": "mmHg",
  "kg/m2": "kg/m²",
  "10*3/uL": "×10³/µL",
  "10*9/L": "×10⁹/L",
  "umol/L": "µmol/L",
  "mL/min/{1.73_m2}": "mL/min/1.73 m²",
};

export function valueText(o: Item): string | null {
  const v = o.value ?? o.valueQuantity;
  if (v === undefined || v === null || v === "") return null;
  const unit = UNITS[s(o.unit) ?? ""] ?? s(o.unit);
  return `${typeof v === "number" ? v.toLocaleString("en-GB", { maximumFractionDigits: 2 }) : String(v)}${unit ? `${unit.startsWith("°") || unit === "%" ? "" : " "}${unit}` : ""}`;
}

export function toItem(kind: ItemKind, o: Item) {
  const id = s(o.id) ?? "";
  let summary: string | null = null;
  if (kind === "observation") summary = valueText(o);
  if (kind === "medication")
    summary =
      [s(o.dosageText), s(o.reasonDisplay) ? `for ${s(o.reasonDisplay)}` : null]
        .filter(Boolean)
        .join(" · ") || null;
  if (kind === "condition") summary = s(o.icd10Code) ? `ICD-10 ${s(o.icd10Code)}` : null;
  return {
    kind,
    id,
    title: first(o, TITLE_KEYS) ?? id,
    code: s(o.code),
    date: dateOf(o, kind),
    summary,
    status: first(
      o,
      kind === "observation"
        ? ["interpretation", "status"]
        : kind === "condition"
          ? ["clinicalStatus", "status"]
          : ["status"],
    ),
    raw: o,
  };
}

export type TimelineItem = ReturnType<typeof toItem>;

/** an encounter's items, and the loose ones, in this order */
const KIND_ORDER: readonly ItemKind[] = ["condition", "medication", "observation"];

const ENCOUNTER_CLASS: Record<string, string> = {
  AMB: "Outpatient visit",
  IMP: "Inpatient stay",
  EMER: "Emergency visit",
};

export function buildTimeline(profile: {
  encounters: Item[];
  conditions: Item[];
  observations: Item[];
  medications: Item[];
}): TimelineEvent[] {
  const events = new Map<string, TimelineEvent>();
  for (const e of profile.encounters) {
    const id = s(e.id) ?? `encounter-${events.size}`;
    const klass = s(e.class);
    events.set(id, {
      kind: "encounter",
      id,
      date: dateOf(e, "encounter"),
      end: first(e, ["periodEnd", "end"]),
      title:
        (klass && ENCOUNTER_CLASS[klass]) ??
        (s(e.classDisplay) ? capitalise(s(e.classDisplay)!) : "Encounter"),
      subtitle: [s(e.reasonDisplay), s(e.serviceProvider)].filter(Boolean).join(" · ") || null,
      items: [],
      raw: e,
    });
  }
  const loose: TimelineEvent[] = [];
  for (const kind of KIND_ORDER) {
    for (const o of profile[`${kind}s`]) {
      const item = toItem(kind, o);
      const host = events.get(s(o.encounterId) ?? s(o.encounter) ?? "");
      if (host) host.items.push(item);
      else
        loose.push({
          kind,
          id: item.id,
          date: item.date,
          end: null,
          title: item.title,
          subtitle: item.summary,
          items: [item],
          raw: null,
        });
    }
  }
  const all = [...events.values(), ...loose];
  for (const e of all)
    e.items.sort(
      (a, b) =>
        KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.date ?? "").localeCompare(b.date ?? ""),
    );
  // chronological; undated events last
  return all.sort((a, b) => (a.date ? (b.date ? a.date.localeCompare(b.date) : -1) : b.date ? 1 : 0));
}

const capitalise = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);
