import { createHmac } from "node:crypto";
import { z } from "zod";
import {
  isSmall,
  MIN_K,
  protect,
  publicReason,
  publicSuppressionReason,
  published,
  publishedCount,
  type CountNode,
  type PublishedCount,
} from "../federated";
import { isObject, type Disclosure } from "../dataspace-protocol";
import { DIRECT_IDENTIFIER_KEYS } from "../privacy";

/**
 * What leaves the hub under a data permit (issue 34): the data plane's answer for an asset, shaped
 * to what the asset is. An aggregate asset delivers counts only, k-anonymous by the small-cell rule
 * of the federated counts (server/federated/suppression.ts: counts from 1 to k−1 suppressed, with
 * complementary suppression). A pseudonymised asset delivers the records with every identifier
 * replaced by a pseudonym keyed per permit (HMAC-SHA-256 of the server's secret over the permit id
 * and the identifier): never an identifier the patient, the holder or another permit sees.
 *
 * Releasing twice is releasing once (the source releases, graph-bridge.ts, and the hub's pull checks
 * what it pulled by releasing it again): a Bundle tagged with the permit keeps the pseudonyms it holds,
 * and a released report keeps its counts if none it publishes or lets be derived lies from 1 to k−1.
 */

type Json = Record<string, unknown>;

/** the resources of a FHIR Bundle (entry[].resource), or none */
function resourcesOf(data: unknown): Json[] {
  if (!isObject(data) || !Array.isArray(data.entry)) return [];
  return data.entry
    .map((e) => (isObject(e) && isObject(e.resource) ? e.resource : null))
    .filter((r): r is Json => !!r);
}

/**
 * keys that name a person directly: never delivered, whatever the asset. The role table's direct
 * identifiers (server/privacy/policy.ts: who entered a measurement, the app account, the device's name,
 * free-text notes, source values, ...) and a few a record from elsewhere may carry; the birth date
 * leaves as its year (`birthDate` below), as the table allows.
 */
const DIRECT_IDENTIFIERS = new Set([
  ...DIRECT_IDENTIFIER_KEYS.filter((k) => k !== "birthDate"),
  "address",
  "telecom",
  "email",
  "phone",
  "ssn",
  "insuranceNumber",
  "username",
]);

const PSEUDONYM = /^psn-[\w-]{22}$/;
const permitMeta = (permitId: string) => ({
  tag: [{ system: "urn:health-dataspace-hub:permit", code: permitId }],
});

export function pseudonymFor(secret: string, permitId: string, identifier: string): string {
  return `psn-${createHmac("sha256", secret).update(`${permitId}\n${identifier}`).digest("base64url").slice(0, 22)}`;
}

/** the records, every identifier (ids, graph ids, references to them) replaced by its pseudonym under the permit */
export function pseudonymised(data: unknown, secret: string, permitId: string): Json {
  const resources = resourcesOf(data);
  const kept =
    isObject(data) && JSON.stringify(data.meta) === JSON.stringify(permitMeta(permitId)) ? PSEUDONYM : null;
  const ids = new Map<string, string>();
  const pseudonym = (id: string) => {
    let p = ids.get(id);
    if (!p) ids.set(id, (p = pseudonymFor(secret, permitId, id)));
    return p;
  };
  for (const r of resources) {
    for (const k of ["id", "graphId", "resourceId", "patientId"])
      if (typeof r[k] === "string" && !kept?.test(r[k])) pseudonym(r[k]);
  }
  const known = [...ids.keys()].sort((a, b) => b.length - a.length);
  const replace = (s: string): string => {
    const direct = ids.get(s);
    if (direct) return direct;
    let out = s;
    for (const id of known) if (out.includes(id)) out = out.split(id).join(ids.get(id)!);
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return replace(v);
    if (Array.isArray(v)) return v.map(walk);
    if (!isObject(v)) return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (DIRECT_IDENTIFIERS.has(k) || k === "graphId") continue;
      out[k] = k === "birthDate" && typeof x === "string" ? x.slice(0, 4) : walk(x);
    }
    return out;
  };
  return {
    resourceType: "Bundle",
    type: "collection",
    meta: permitMeta(permitId),
    total: resources.length,
    entry: resources.map((r) => {
      const resource = walk(r) as Json;
      return { fullUrl: `urn:pseudonym:${String(resource.id)}`, resource };
    }),
  };
}

const codeOf = (r: Json): string | undefined => {
  for (const k of ["code", "conceptCode", "display", "medicationCode"]) {
    const v = r[k];
    if (typeof v === "string" && v) return v;
    if (
      isObject(v) &&
      Array.isArray(v.coding) &&
      isObject(v.coding[0]) &&
      typeof v.coding[0].code === "string"
    )
      return v.coding[0].code;
  }
  return undefined;
};

/** the patient a resource is about (its `patientId`, else its subject's or patient's reference); one for all without */
const personOf = (r: Json): string => {
  if (typeof r.patientId === "string") return r.patientId;
  for (const ref of [r.subject, r.patient]) {
    const s = isObject(ref) ? ref.reference : ref;
    if (typeof s === "string") return s.replace(/^Patient\//, "");
  }
  return "";
};

/**
 * The records as counts: patients, and per resource type and code the number of resources, each
 * published by the k rule (a count from 1 to k−1 is suppressed, and complementary cells with it), and
 * a count of resources about fewer than k patients is suppressed as such a count is.
 */
export function aggregated(data: unknown, k = MIN_K): Json {
  const released = releasedReport.safeParse(data);
  if (released.success) return rechecked(released.data, k);
  const resources = resourcesOf(data);
  const byType = new Map<string, Map<string, { value: number; persons: Set<string> }>>();
  let patients = 0;
  for (const r of resources) {
    const type = typeof r.resourceType === "string" ? r.resourceType : "Resource";
    if (type === "Patient") {
      patients++;
      continue;
    }
    const codes = byType.get(type) ?? new Map<string, { value: number; persons: Set<string> }>();
    const code = codeOf(r) ?? "unspecified";
    const cell = codes.get(code) ?? { value: 0, persons: new Set<string>() };
    cell.value++;
    cell.persons.add(personOf(r));
    codes.set(code, cell);
    byType.set(type, codes);
  }
  // a count of fewer than k patients' resources is suppressed whatever its number, and never recomputed
  const fewPersons = (persons: Set<string>) => isSmall(persons.size, k);
  const groups: { type: string; node: CountNode }[] = [...byType].map(([type, codes]) => {
    const cells = [...codes];
    const children: CountNode[] = cells.map(([code, { value, persons }]) => ({
      key: code,
      value,
      forceSuppress: fewPersons(persons),
    }));
    const value = children.reduce((a, c) => a + c.value, 0);
    const persons = new Set(cells.flatMap(([, c]) => [...c.persons]));
    const node = protect({ key: type, value, forceSuppress: fewPersons(persons), groups: [children] }, k);
    // protected as a guarded cell, published as what it is: a small count (of patients)
    for (const c of [node, ...children]) if (c.reason === "differencing") c.reason = "below-k";
    return { type, node };
  });
  const root = protect({ key: "patients", value: patients }, k);
  const cells = (n: CountNode): PublishedCount[] => (n.groups?.[0] ?? []).map((c) => published(c, k));
  return report(
    k,
    published(root, k),
    groups.map(({ type, node }) => ({ resourceType: type, total: published(node, k), byCode: cells(node) })),
  );
}

/** a count as a report released before carries it: then a primary and a complementary reason were told apart */
const releasedCount = publishedCount.extend({
  reason: z.enum([...publicSuppressionReason.options, "below-k", "complementary"]).optional(),
});
type ReleasedCount = z.infer<typeof releasedCount>;

const releasedReport = z.object({
  resourceType: z.literal("MeasureReport"),
  patients: releasedCount,
  groups: z.array(
    z.object({ resourceType: z.string(), total: releasedCount, byCode: z.array(releasedCount) }),
  ),
});
type Group = z.infer<typeof releasedReport>["groups"][number];

const report = (k: number, patients: PublishedCount, groups: Group[]): Json => ({
  resourceType: "MeasureReport",
  status: "complete",
  type: "summary",
  k,
  rule: `counts from 1 to ${k - 1} suppressed, with complementary suppression`,
  patients,
  groups,
});

/**
 * A report already released, rebuilt from its counts: kept when each count is published or withheld
 * (null) alike, none published lies from 1 to k−1, nor does the sum a group withholds, and a withheld
 * total withholds its codes; else every count is withheld.
 */
function rechecked({ patients, groups }: z.infer<typeof releasedReport>, k: number): Json {
  const sound = (c: ReleasedCount) => (c.count === null) === c.suppressed && !isSmall(c.count ?? 0, k);
  const safe = (g: Group) => {
    const shown = g.byCode.filter((c) => !c.suppressed);
    const withheld = (g.total.count ?? 0) - shown.reduce((a, c) => a + (c.count ?? 0), 0);
    return (
      [g.total, ...g.byCode].every(sound) &&
      (g.total.suppressed ? !shown.length : withheld >= 0 && !isSmall(withheld, k))
    );
  };
  const hide = !sound(patients) || !groups.every(safe);
  const cell = (c: ReleasedCount): PublishedCount => {
    const out = published({ key: c.key, value: c.count ?? 0, suppressed: hide || c.suppressed }, k);
    return out.suppressed
      ? { ...out, reason: hide ? "small-count" : c.reason && publicReason(c.reason) }
      : out;
  };
  return report(
    k,
    cell(patients),
    groups.map((g) => ({ resourceType: g.resourceType, total: cell(g.total), byCode: g.byCode.map(cell) })),
  );
}

/** the data as the asset's terms deliver it under the permit */
export function release(data: unknown, disclosure: Disclosure, secret: string, permitId: string): Json {
  return disclosure === "aggregate" ? aggregated(data) : pseudonymised(data, secret, permitId);
}
