import { createHmac } from "node:crypto";
import type { GraphEdge, GraphNode, GraphResponse, Properties, PropertyValue, Relationship } from "../graph";
import {
  DIRECT_IDENTIFIER_KEYS,
  PATIENT_NUMBER_KEYS,
  PERSON_LABELS,
  seesCount,
  seesIdentity,
  type Viewer,
} from "./policy";
import { PSEUDO_ID, REAL_ID, REAL_ID_IN_TEXT, pad6, patientIdOf } from "./ids";

/**
 * Turns graph records into what a viewer may see (server/privacy/policy.ts): records of people
 * whose identities the viewer may not read get a stable pseudonym instead of the ids that carry
 * the record holder's patient number, the birth year instead of the birth date, and lose names,
 * address, telecom, city, FHIR resource ids and source values. Pure functions over a directory of
 * the seeded patients (number → holder, pseudonym → number), so they can be tested alone.
 */

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
function base32(buf: Buffer, chars: number): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= chars) break;
  }
  return out;
}

export type Pseudonymiser = ReturnType<typeof createPseudonymiser>;

export function createPseudonymiser(secret: string) {
  if (!secret || secret.length < 16) throw new Error("the pseudonym secret must be at least 16 characters");
  const memo = new Map<number, string>();
  return {
    /** the stable pseudonym of a patient number: 12 base32 characters of HMAC-SHA256(secret, number) */
    of(n: number): string {
      let p = memo.get(n);
      if (p === undefined) {
        p = base32(createHmac("sha256", secret).update(`patient:${n}`).digest(), 12);
        if (memo.size > 1_000_000) memo.clear();
        memo.set(n, p);
      }
      return p;
    },
  };
}

/** what the redaction needs to know of the population */
export interface PatientDirectory {
  /** the holder slug of a patient number */
  holderOf(patientNumber: number): string | undefined;
  /** the patient number behind a pseudonym, if it is one of this graph's patients */
  numberOf(pseudonym: string): number | undefined;
}

/** the patient number a person-level node belongs to as stored (its id, else its patientId reference) */
function numberOfNode(n: GraphNode): number | undefined {
  const m = REAL_ID.exec(n.id);
  if (m) return Number(m[2]);
  const ref = n.properties.patientId;
  const r = typeof ref === "string" ? REAL_ID.exec(ref) : null;
  return r ? Number(r[2]) : undefined;
}

/**
 * The patients whose records the nodes of an answer already redacted for its viewer show with their
 * identities: those they carry under their stored ids or references (a pseudonymised record carries
 * none). Each is a look at that person's record (server/audit/access-log.ts).
 */
export function patientsShown(nodes: readonly GraphNode[]): string[] {
  const shown = new Set<string>();
  for (const n of nodes) {
    const num = numberOfNode(n);
    if (num !== undefined) shown.add(patientIdOf(num));
  }
  return [...shown].sort();
}

export type Redactor = ReturnType<typeof createRedactor>;

export function createRedactor(viewer: Viewer, psn: Pseudonymiser, dir: PatientDirectory) {
  const identified = viewer.identities === "all";
  const sees = (n: number) => seesIdentity(viewer, { holder: dir.holderOf(n), patientId: patientIdOf(n) });

  const mapMatch = (prefix: string, digits: string, rest: string) => {
    const n = Number(digits);
    return sees(n) ? `${prefix}-${digits}${rest}` : `${prefix}-x${psn.of(n)}${rest}`;
  };
  /** a string that may carry person-level ids (an id, a reference), as the viewer may see it */
  const text = (s: string): string => {
    if (identified || !s.includes("-")) return s;
    const m = REAL_ID.exec(s);
    if (m) return mapMatch(m[1], m[2], m[3]);
    return s.replace(REAL_ID_IN_TEXT, (_all, prefix: string, digits: string) => mapMatch(prefix, digits, ""));
  };
  const value = (v: PropertyValue): PropertyValue =>
    typeof v === "string"
      ? text(v)
      : Array.isArray(v) && v.every((x) => typeof x === "string")
        ? (v as string[]).map(text)
        : v;

  function node(n: GraphNode): GraphNode {
    if (identified) return n;
    if (n.label === "HealthDataset" && !seesCount(viewer, { id: n.id, ...n.properties }, "all")) {
      const { recordCount: _withheld, ...properties } = n.properties;
      return { ...n, properties };
    }
    const person = PERSON_LABELS.includes(n.label);
    const num = numberOfNode(n);
    if (!person && num === undefined) return n;
    if (num !== undefined && sees(num)) return n;
    if (num === undefined && seesIdentity(viewer, { holder: strOf(n.properties.holder) })) return n;
    const out: Properties = {};
    for (const [k, v] of Object.entries(n.properties)) {
      if (DIRECT_IDENTIFIER_KEYS.includes(k)) continue;
      if (PATIENT_NUMBER_KEYS.includes(k)) continue;
      out[k] = value(v);
    }
    const birth = strOf(n.properties.birthDate);
    if (birth && /^\d{4}/.test(birth)) out.birthYear = Number(birth.slice(0, 4));
    if (num !== undefined) {
      out.pseudonym = psn.of(num);
      if ("personId" in n.properties) out.personId = psn.of(num);
    }
    return { id: text(n.id), label: n.label, layer: n.layer, properties: out };
  }

  function edge(e: GraphEdge): GraphEdge {
    if (identified) return e;
    const source = text(e.source);
    const target = text(e.target);
    if (source === e.source && target === e.target && text(e.id) === e.id) return e;
    const id = e.id === `${e.source}:${e.type}:${e.target}` ? `${source}:${e.type}:${target}` : text(e.id);
    return { id, source, target, type: e.type };
  }

  return {
    node,
    edge,
    text,
    graph: (g: GraphResponse) =>
      identified ? g : { ...g, nodes: g.nodes.map(node), edges: g.edges.map(edge) },
    relationship: (r: Relationship) => (identified ? r : { ...r, id: text(r.id), node: node(r.node) }),
    /**
     * The stored id behind an id the caller sent: a pseudonymised id resolves to the record it stands
     * for; a stored person-level id the viewer may not see resolves to null (answered as not found).
     */
    resolve(id: string): string | null {
      const p = PSEUDO_ID.exec(id);
      if (p) {
        const n = dir.numberOf(p[2]);
        return n === undefined ? null : `${p[1]}-${pad6(n)}${p[3]}`;
      }
      const m = REAL_ID.exec(id);
      if (m && !identified && !sees(Number(m[2]))) return null;
      return id;
    },
  };
}

const strOf = (v: PropertyValue | undefined) => (typeof v === "string" ? v : undefined);

/** whether a string is (or carries) a stored person-level id */
export function carriesStoredPersonId(s: string): boolean {
  REAL_ID_IN_TEXT.lastIndex = 0;
  const hit = REAL_ID_IN_TEXT.test(s);
  REAL_ID_IN_TEXT.lastIndex = 0;
  return hit;
}
