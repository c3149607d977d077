import { findPersona } from "../../server/auth/personas";
import type { Access, HttpMethod, RouteSpec } from "../../server/http/route-table";

/**
 * The malformed requests of the generated bad-input test (tests/api/bad-input.test.ts), derived
 * from the route table: every route, every method, every persona and anonymous callers; broken
 * bodies (invalid JSON, wrong content type, no content type, 2 MB, deep nesting, bare values, lone
 * surrogates, missing and wrong-typed fields); odd ids in paths, bodies and queries; negative, huge
 * and non-numeric `limit`/`depth`/`page`.
 */

export const PERSONAS_UNDER_TEST = ["admin", "regulator", "clinic", "researcher", "trustcenter", "patient1"];

export interface BadCase {
  /** a persona's username, or null for an anonymous caller */
  persona: string | null;
  method: HttpMethod;
  path: string;
  /** the route table's path (for reports) */
  route: string;
  kind: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** the exact status the answer must have, when the case determines it */
  expect?: number;
}

/** Odd ids: path traversal, NUL, non-ASCII, quotes and SQL/Cypher fragments, markup, very long. */
export const ODD_IDS = [
  "../../etc/passwd",
  "..",
  "a\u0000b",
  "ünïcødé-идентификатор-😀",
  `x"; DROP TABLE audit_entries; --`,
  "' OR '1'='1",
  "MATCH (n) DETACH DELETE n",
  "<script>alert(1)</script>",
  "a".repeat(5000),
  " ",
  "%00%2e%2e%2f",
];

/** in JSON bodies only (no URL can carry it): a lone surrogate */
export const LONE_SURROGATE_ID = "id-\ud800";

const json = { "content-type": "application/json" };

/** Body field names that the routes read (spec section 4 and the capabilities' zod schemas). */
const ID_FIELDS = [
  "id",
  "participantId",
  "participantContextId",
  "assetId",
  "patientId",
  "studyId",
  "policyId",
  "offerId",
  "contractId",
  "counterPartyId",
  "providerDid",
  "applicationId",
  "permitId",
  "findingId",
  "requestId",
  "informationRequestId",
  "deviceId",
  "pairingId",
  "did",
  "kind",
];
const TEXT_FIELDS = ["title", "name", "displayName", "role", "question", "templateId", "purpose", "reason"];

export function personaRoles(persona: string | null): string[] {
  return persona ? (findPersona(persona)?.roles ?? []) : [];
}

/** What the dispatcher's guard must answer for this caller: undefined when it lets the call through. */
export function guardAnswer(access: Access, persona: string | null): 401 | 403 | undefined {
  const roles = personaRoles(persona);
  switch (access.kind) {
    case "public":
    case "device-attestation":
      return undefined;
    case "session-or-crawler":
      return persona ? undefined : 401;
    case "patient-or-device":
      if (!persona) return 401;
      return roles.includes("PATIENT") ? undefined : 403;
    case "session":
      if (!persona) return 401;
      if (access.roles === "any") return undefined;
      return access.roles.some((r) => roles.includes(r)) ? undefined : 403;
  }
}

export const concretePath = (path: string, value = "probe-1") =>
  path.replace(":rest*", "signin/probe").replace(/:([A-Za-z]+)/g, () => value);

export const isMutating = (m: HttpMethod) => m !== "GET";

export function routeMethods(routes: RouteSpec[]) {
  return routes.flatMap((route) =>
    (Object.entries(route.methods) as [HttpMethod, { access: Access }][]).map(([method, spec]) => ({
      route,
      method,
      access: spec.access,
    })),
  );
}

/** The first persona (or anonymous) the guard lets through. */
export function admittedPersona(access: Access): string | null | undefined {
  if (guardAnswer(access, null) === undefined) return null;
  return PERSONAS_UNDER_TEST.find((p) => guardAnswer(access, p) === undefined);
}

function deepBody(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

export function generateCases(routes: RouteSpec[]): BadCase[] {
  const cases: BadCase[] = [];
  const all = routeMethods(routes);

  // 1. the guard: every route × method × persona and anonymous, with an invalid JSON body on writes
  for (const { route, method, access } of all) {
    for (const persona of [...PERSONAS_UNDER_TEST, null]) {
      const guard = guardAnswer(access, persona);
      cases.push({
        persona,
        method,
        path: concretePath(route.path),
        route: route.path,
        kind: "guard",
        ...(isMutating(method) ? { headers: json, body: '{"broken": ' } : {}),
        expect: guard ?? (isMutating(method) ? 400 : undefined),
      });
    }
  }

  for (const { route, method, access } of all) {
    const persona = admittedPersona(access);
    if (persona === undefined) continue;
    const base = { persona, method, route: route.path, path: concretePath(route.path) };

    // 2. broken bodies on every write
    if (isMutating(method)) {
      const big = `{"x":"${"a".repeat(2_000_000)}"}`;
      cases.push(
        { ...base, kind: "invalid JSON", headers: json, body: "{'single': quotes}", expect: 400 },
        {
          ...base,
          kind: "text/plain JSON",
          headers: { "content-type": "text/plain" },
          body: "{}",
          expect: 415,
        },
        {
          ...base,
          kind: "form body",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "a=1",
          expect: route.path === "/api/auth/:rest*" ? undefined : 415,
        },
        { ...base, kind: "no content type", body: new TextEncoder().encode("{}"), expect: 415 },
        { ...base, kind: "2 MB body", headers: json, body: big, expect: 413 },
        { ...base, kind: "deep nesting", headers: json, body: deepBody(5000), expect: 400 },
        { ...base, kind: "array body", headers: json, body: "[1,2,3]", expect: 400 },
        { ...base, kind: "bare string", headers: json, body: '"hello"', expect: 400 },
        { ...base, kind: "null body", headers: json, body: "null", expect: 400 },
        { ...base, kind: "lone surrogate", headers: json, body: '{"id":"\\ud800"}', expect: 400 },
        { ...base, kind: "empty object", headers: json, body: "{}" },
        {
          ...base,
          kind: "wrong-typed fields",
          headers: json,
          body: JSON.stringify(
            Object.fromEntries(
              [...ID_FIELDS, ...TEXT_FIELDS].map((f, i) => [f, [i, { x: null }, true][i % 3]]),
            ),
          ),
        },
        {
          ...base,
          kind: "huge numbers",
          headers: json,
          body: JSON.stringify({ limit: 1e308, recordCount: -1e308, days: 1e21, depth: -1 }),
        },
      );
      for (const odd of [ODD_IDS[0], ODD_IDS[2], ODD_IDS[4], ODD_IDS[8], LONE_SURROGATE_ID]) {
        const body = JSON.stringify({
          ...Object.fromEntries(ID_FIELDS.map((f) => [f, odd])),
          ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, odd])),
          counterPartyAddress: "http://127.0.0.1:9/dsp",
        });
        cases.push({
          ...base,
          kind: "odd ids in body",
          headers: json,
          body,
          expect: odd === LONE_SURROGATE_ID ? 400 : undefined,
        });
      }
    }

    // 3. odd ids in path parameters
    if (route.path.includes(":")) {
      for (const odd of ODD_IDS) {
        cases.push({
          ...base,
          kind: "odd id in path",
          path: concretePath(route.path, encodeURIComponent(odd)),
          ...(isMutating(method) ? { headers: json, body: "{}" } : {}),
        });
      }
      cases.push({
        ...base,
        kind: "malformed escape in path",
        path: concretePath(route.path, "%ED%A0%80%zz"),
      });
    }

    // 4. odd query values
    if (method === "GET" || method === "DELETE") {
      const queries = [
        "limit=-1",
        "limit=99999999999999999999999",
        "limit=abc",
        "depth=-3",
        "depth=1000000000",
        "page=-1",
        "page=1e400",
        "layer=l9",
        "catalog=true&providerDid=..%2F..",
        ...["id", "patientId", "participantId", "studyId", "state", "policyId"].flatMap((p) =>
          [ODD_IDS[0], ODD_IDS[4]].map((v) => `${p}=${encodeURIComponent(v)}`),
        ),
        `id=${encodeURIComponent(ODD_IDS[8])}&participantId=${encodeURIComponent(ODD_IDS[2])}`,
      ];
      for (const q of queries) {
        cases.push({
          ...base,
          kind: "odd query",
          path: `${base.path}?${q}`,
          ...(isMutating(method) ? { headers: json, body: "{}" } : {}),
        });
      }
    }
  }
  return cases;
}
