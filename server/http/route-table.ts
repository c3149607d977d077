import type { Role } from "../auth/personas";

/**
 * The one route table: every /api path of the spec with its methods, who may call it and
 * whether a session is needed. The dispatcher (api-handler.ts), the authorisation tests and
 * the OpenAPI document all read this table. Handlers are bound by key ("GET /api/catalog")
 * in handlers.ts; a listed route without a handler answers 501.
 *
 * Access rules stated by the spec (section 5) are marked "spec"; the others are our decisions,
 * recorded in docs/decisions/0003-route-access.md.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Access =
  /** no session needed */
  | { kind: "public" }
  /** a session, and (unless "any") one of the roles */
  | { kind: "session"; roles: "any" | readonly Role[] }
  /** a session or the catalogue crawler's bearer token (CRAWLER_TOKEN) */
  | { kind: "session-or-crawler" }
  /** no cookie session: a device attestation of the companion app is checked by the handler */
  | { kind: "device-attestation" }
  /** a PATIENT session, or the device-bound credential of a paired companion app */
  | { kind: "patient-or-device" };

export interface MethodSpec {
  access: Access;
  summary: string;
}

export interface RouteSpec {
  path: string;
  capability: string;
  methods: Partial<Record<HttpMethod, MethodSpec>>;
}

const pub: Access = { kind: "public" };
const anyUser: Access = { kind: "session", roles: "any" };
const roles = (...r: Role[]): Access => ({ kind: "session", roles: r });

const ADMIN: Role = "CONNECTOR_ADMIN";
const HDAB: Role = "HDAB_AUTHORITY";
const HOLDER: Role = "DATA_HOLDER";
const USER: Role = "DATA_USER";
const PATIENT: Role = "PATIENT";
const TRUST: Role = "TRUST_CENTER_OPERATOR";
const PARTICIPANT: Role = "CONNECTOR_USER_PARTICIPANT";

/** Everyone but patients: the graph and dataspace views hold other people's data. */
const staff = roles(ADMIN, HDAB, HOLDER, USER, TRUST, PARTICIPANT);
const dataspace = roles(ADMIN, PARTICIPANT, HOLDER, USER);
const patientData = roles(PATIENT, HOLDER, ADMIN);

export const ROUTES: RouteSpec[] = [
  {
    path: "/api/health",
    capability: "health",
    methods: { GET: { access: pub, summary: "Health probe (spec)" } },
  },

  {
    path: "/api/catalog",
    capability: "catalogue",
    methods: {
      GET: { access: anyUser, summary: "List HealthDCAT-AP datasets" },
      POST: {
        access: roles(HOLDER, ADMIN),
        summary: "Publish a dataset (spec: DATA_HOLDER or CONNECTOR_ADMIN)",
      },
      DELETE: { access: roles(HOLDER, ADMIN), summary: "Withdraw a dataset" },
    },
  },

  {
    path: "/api/graph",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Graph sample by layer" } },
  },
  {
    path: "/api/graph/expand",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Neighbourhood of a node" } },
  },
  {
    path: "/api/graph/node",
    capability: "graph",
    methods: { GET: { access: staff, summary: "A node with its relationships" } },
  },
  {
    path: "/api/graph/validate",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Schema constraints and counts" } },
  },

  {
    path: "/api/patient",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "Patients visible to the caller" } },
  },
  {
    path: "/api/patient/profile",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "A patient's record" } },
  },
  {
    path: "/api/patient/insights",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "Insight summary of a patient's record" } },
  },
  {
    path: "/api/patient/research",
    capability: "patient",
    methods: {
      GET: { access: patientData, summary: "Research programmes and the patient's consents" },
      POST: { access: roles(PATIENT, ADMIN), summary: "Grant research consent" },
      DELETE: { access: roles(PATIENT, ADMIN), summary: "Revoke research consent" },
    },
  },
  {
    path: "/api/patient/observations",
    capability: "patient-app",
    methods: {
      GET: { access: { kind: "patient-or-device" }, summary: "The patient's observations, filtered" },
    },
  },
  {
    path: "/api/patient/ehr-sync",
    capability: "patient-app",
    methods: {
      POST: {
        access: { kind: "patient-or-device" },
        summary: "Bring the record up to date from the data holders",
      },
    },
  },
  {
    path: "/api/patient/app-devices",
    capability: "patient-app",
    methods: {
      GET: { access: roles(PATIENT), summary: "Paired devices" },
      POST: { access: { kind: "device-attestation" }, summary: "Complete a pairing from the companion app" },
    },
  },
  {
    path: "/api/patient/app-devices/:deviceId",
    capability: "patient-app",
    methods: { DELETE: { access: roles(PATIENT), summary: "Remove a device (revokes its credential)" } },
  },
  {
    path: "/api/patient/app-pairing",
    capability: "patient-app",
    methods: { POST: { access: roles(PATIENT), summary: "Start a pairing" } },
  },
  {
    path: "/api/patient/app-pairing/:pairingId",
    capability: "patient-app",
    methods: { GET: { access: roles(PATIENT), summary: "Pairing state" } },
  },
  {
    path: "/api/patient/app/account",
    capability: "patient-app",
    methods: {
      DELETE: { access: { kind: "patient-or-device" }, summary: "Erase the app account (GDPR Art. 17)" },
    },
  },
  {
    path: "/api/patient/app/record",
    capability: "patient-app",
    methods: {
      GET: { access: { kind: "patient-or-device" }, summary: "The record as a FHIR R4 Bundle" },
      POST: { access: { kind: "patient-or-device" }, summary: "Add self-measured observations" },
    },
  },
  {
    path: "/api/app-accounts",
    capability: "patient-app",
    methods: {
      POST: {
        access: { kind: "device-attestation" },
        summary: "Create an app account from a device attestation (spec: no session)",
      },
    },
  },
  {
    path: "/api/app-accounts/challenge",
    capability: "patient-app",
    methods: { POST: { access: pub, summary: "Single-use attestation nonce (spec: no session)" } },
  },
  {
    path: "/api/auth/eudi/start",
    capability: "eudi",
    methods: { POST: { access: pub, summary: "Start a wallet sign-in (spec: no session)" } },
  },
  {
    path: "/api/auth/eudi/status",
    capability: "eudi",
    methods: { GET: { access: pub, summary: "Wallet sign-in state (spec: no session)" } },
  },

  {
    path: "/api/compliance",
    capability: "compliance",
    methods: {
      GET: { access: roles(HDAB, ADMIN, HOLDER, USER), summary: "EHDS/GDPR/DSP/DCP compliance summary" },
    },
  },
  {
    path: "/api/compliance/tck",
    capability: "compliance",
    methods: { GET: { access: roles(HDAB, ADMIN), summary: "Conformance probes" } },
  },
  {
    path: "/api/compliance/applications",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Data access applications" },
      POST: { access: roles(USER), summary: "Submit an application" },
    },
  },
  {
    path: "/api/compliance/applications/clock",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Clock events: extend, pause, resume" } },
  },
  {
    path: "/api/compliance/applications/complete",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Completeness decision" } },
  },
  {
    path: "/api/compliance/findings",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER, HOLDER), summary: "Supervision findings" },
      POST: { access: roles(HDAB), summary: "Open a finding" },
    },
  },
  {
    path: "/api/compliance/findings/close",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Close a finding" } },
  },
  {
    path: "/api/compliance/findings/respond",
    capability: "access-body",
    methods: { POST: { access: roles(USER, HOLDER), summary: "Respond to a finding" } },
  },
  {
    path: "/api/compliance/information-requests",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Information requests" },
      POST: { access: roles(HDAB), summary: "Ask an applicant for information" },
    },
  },
  {
    path: "/api/compliance/information-requests/answer",
    capability: "access-body",
    methods: { POST: { access: roles(USER), summary: "Answer an information request" } },
  },
  {
    path: "/api/compliance/permits",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Issue a data permit" } },
  },
  {
    path: "/api/compliance/permits/revoke",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Revoke a data permit" } },
  },
  {
    path: "/api/compliance/requests",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Data requests (Art. 69)" },
      POST: { access: roles(USER), summary: "Submit a data request" },
    },
  },
  {
    path: "/api/compliance/requests/decide",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Decide a data request" } },
  },
  {
    path: "/api/compliance/results",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Declared results" },
      POST: { access: roles(USER, HDAB), summary: "Declare or check a result" },
    },
  },
  {
    path: "/api/permits",
    capability: "access-body",
    methods: { GET: { access: anyUser, summary: "Register of applications and permits (Art. 57)" } },
  },
  {
    path: "/api/activity-report",
    capability: "access-body",
    methods: { GET: { access: roles(HDAB, ADMIN), summary: "Activity report (Art. 59)" } },
  },
  {
    path: "/api/information",
    capability: "access-body",
    methods: {
      GET: { access: pub, summary: "Public information on secondary use (Art. 58(1)) (spec: public)" },
    },
  },

  {
    path: "/api/credentials",
    capability: "credentials",
    methods: { GET: { access: staff, summary: "Verifiable credentials" } },
  },
  {
    path: "/api/credentials/definitions",
    capability: "credentials",
    methods: { GET: { access: staff, summary: "Credential definitions at the issuer" } },
  },
  {
    path: "/api/credentials/request",
    capability: "credentials",
    methods: { POST: { access: roles(ADMIN, PARTICIPANT), summary: "Start an issuance" } },
  },
  {
    path: "/api/credentials/:id",
    capability: "credentials",
    methods: { DELETE: { access: roles(ADMIN, HDAB), summary: "Revoke a credential" } },
  },

  {
    path: "/api/negotiations",
    capability: "negotiations",
    methods: {
      GET: { access: dataspace, summary: "Negotiations, or a provider catalogue with catalog=true" },
      POST: { access: dataspace, summary: "Start a contract negotiation" },
    },
  },
  {
    path: "/api/negotiations/:id",
    capability: "negotiations",
    methods: { GET: { access: dataspace, summary: "One negotiation" } },
  },
  {
    path: "/api/transfers",
    capability: "transfers",
    methods: {
      GET: { access: dataspace, summary: "Transfer processes" },
      POST: { access: dataspace, summary: "Start a transfer" },
    },
  },
  {
    path: "/api/transfers/:id",
    capability: "transfers",
    methods: { GET: { access: dataspace, summary: "One transfer" } },
  },
  {
    path: "/api/assets",
    capability: "assets",
    methods: {
      GET: { access: staff, summary: "Data assets" },
      POST: { access: roles(ADMIN, HOLDER), summary: "Register an asset" },
    },
  },
  {
    path: "/api/participants",
    capability: "participants",
    methods: {
      GET: { access: staff, summary: "Participant contexts" },
      POST: { access: roles(ADMIN), summary: "Onboard a participant" },
    },
  },
  {
    path: "/api/participants/me",
    capability: "participants",
    methods: { GET: { access: anyUser, summary: "The caller as a participant" } },
  },
  {
    path: "/api/participants/:id",
    capability: "participants",
    methods: { PATCH: { access: roles(ADMIN), summary: "Update a participant" } },
  },
  {
    path: "/api/participants/:id/credentials",
    capability: "participants",
    methods: { GET: { access: staff, summary: "A participant's credentials" } },
  },

  {
    path: "/api/tasks",
    capability: "tasks",
    methods: {
      GET: { access: dataspace, summary: "Negotiations and transfers as tasks (spec: scoped; admins all)" },
    },
  },
  {
    path: "/api/trust-center",
    capability: "trust-center",
    methods: { GET: { access: roles(TRUST, ADMIN), summary: "Trust center view" } },
  },
  {
    path: "/api/federated",
    capability: "federated",
    methods: {
      GET: {
        access: roles(USER, HOLDER, HDAB, ADMIN, TRUST),
        summary: "Federated cohort summary (k-anonymous)",
      },
    },
  },
  {
    path: "/api/nlq",
    capability: "nlq",
    methods: {
      GET: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "Question templates" },
      POST: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "Ask a question" },
    },
  },
  {
    path: "/api/nlq/backend",
    capability: "nlq",
    methods: { GET: { access: anyUser, summary: "Which back end answers questions" } },
  },
  {
    path: "/api/eehrxf",
    capability: "eehrxf",
    methods: { GET: { access: anyUser, summary: "EEHRxF profile coverage" } },
  },
  {
    path: "/api/analytics",
    capability: "analytics",
    methods: { GET: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "OMOP dashboard" } },
  },
  {
    path: "/api/overview",
    capability: "overview",
    methods: { GET: { access: anyUser, summary: "Persona overview" } },
  },
  {
    path: "/api/odrl/scope",
    capability: "policies",
    methods: { GET: { access: anyUser, summary: "The caller's effective ODRL scope" } },
  },

  {
    path: "/api/admin/tenants",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Tenants (spec: admin)" } },
  },
  {
    path: "/api/admin/audit",
    capability: "audit",
    methods: { GET: { access: roles(ADMIN, HDAB), summary: "Audit entries (spec: admin or HDAB)" } },
  },
  {
    path: "/api/admin/audit/retention",
    capability: "audit",
    methods: {
      GET: { access: roles(ADMIN, HDAB), summary: "Retention per entry kind" },
      POST: { access: roles(ADMIN, HDAB), summary: "Set a retention period" },
    },
  },
  {
    path: "/api/admin/components",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Components and their health" } },
  },
  {
    path: "/api/admin/components/topology",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Dependency graph" } },
  },
  {
    path: "/api/admin/components/:name/diagnosis",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "What the probe saw" } },
  },
  {
    path: "/api/admin/components/:name/restart",
    capability: "operator",
    methods: { POST: { access: roles(ADMIN), summary: "Re-initialise a component" } },
  },
  {
    path: "/api/admin/participants",
    capability: "operator",
    methods: {
      GET: { access: roles(ADMIN), summary: "Participant directory for the crawler" },
      POST: { access: roles(ADMIN), summary: "Add a directory entry" },
      DELETE: { access: roles(ADMIN), summary: "Remove a directory entry" },
    },
  },
  {
    path: "/api/admin/policies",
    capability: "policies",
    methods: {
      GET: { access: roles(ADMIN, HDAB), summary: "ODRL policies (spec: admin or HDAB)" },
      POST: { access: roles(ADMIN, HDAB), summary: "Create a policy" },
      PUT: { access: roles(ADMIN, HDAB), summary: "Replace a policy" },
      DELETE: { access: roles(ADMIN, HDAB), summary: "Delete a policy" },
    },
  },
  {
    path: "/api/debug/phase26",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Federated discovery check (spec: admin)" } },
  },
  {
    path: "/api/keycloak-config",
    capability: "auth",
    methods: { GET: { access: pub, summary: "Where the identity provider is (spec: public)" } },
  },
  {
    path: "/api/mock-dsp/:participant/catalog/request",
    capability: "operator",
    methods: {
      GET: {
        access: { kind: "session-or-crawler" },
        summary: "Demonstration DSP catalogue (spec: session or crawler token)",
      },
      POST: { access: { kind: "session-or-crawler" }, summary: "Demonstration DSP catalogue request" },
    },
  },
  {
    path: "/api/auth/:rest*",
    capability: "auth",
    methods: {
      GET: { access: pub, summary: "Session and provider information for clients (spec: sign-in routes)" },
      POST: { access: pub, summary: "Sign-in flow endpoints (spec: sign-in routes)" },
    },
  },
];

export interface CompiledRoute {
  spec: RouteSpec;
  regex: RegExp;
  paramNames: string[];
  /** higher = more specific (more static segments); used to order matches */
  specificity: number;
}

function compile(spec: RouteSpec): CompiledRoute {
  const paramNames: string[] = [];
  let specificity = 0;
  const parts = spec.path
    .split("/")
    .filter(Boolean)
    .map((seg) => {
      if (seg.startsWith(":") && seg.endsWith("*")) {
        paramNames.push(seg.slice(1, -1));
        return "(.+)";
      }
      if (seg.startsWith(":")) {
        paramNames.push(seg.slice(1));
        return "([^/]+)";
      }
      specificity += 10;
      return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    });
  return { spec, regex: new RegExp(`^/${parts.join("/")}/?$`), paramNames, specificity };
}

export const COMPILED_ROUTES: CompiledRoute[] = ROUTES.map(compile).sort(
  (a, b) => b.specificity - a.specificity,
);

export interface RouteMatch {
  route: RouteSpec;
  method: HttpMethod;
  methodSpec: MethodSpec;
  params: Record<string, string>;
}

export type MatchResult =
  | { kind: "match"; match: RouteMatch }
  | { kind: "method-not-allowed"; allow: HttpMethod[] }
  | { kind: "none" };

export function matchRoute(method: string, pathname: string): MatchResult {
  const m = (method === "HEAD" ? "GET" : method) as HttpMethod;
  const allow = new Set<HttpMethod>();
  let found = false;
  for (const c of COMPILED_ROUTES) {
    const r = c.regex.exec(pathname);
    if (!r) continue;
    found = true;
    const methodSpec = c.spec.methods[m];
    if (methodSpec) {
      const params: Record<string, string> = {};
      c.paramNames.forEach((name, i) => {
        params[name] = safeDecode(r[i + 1]);
      });
      return { kind: "match", match: { route: c.spec, method: m, methodSpec, params } };
    }
    for (const k of Object.keys(c.spec.methods)) allow.add(k as HttpMethod);
  }
  return found ? { kind: "method-not-allowed", allow: [...allow] } : { kind: "none" };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export const routeKey = (method: HttpMethod, path: string) => `${method} ${path}`;
