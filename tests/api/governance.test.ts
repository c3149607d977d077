import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAS, type Role } from "../../server/auth/personas";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Issue 4, black box: credentials, ODRL policies and scope, audit and retention, the operator
 * console, the trust center, the identity provider's address, the discovery check and the
 * demonstration DSP catalogue, against the real server with its embedded dataspace.
 */

const CRAWLER_TOKEN = "crawler-token-for-tests-0123456789";
let server: TestServer;
const as = new Map<string, Signed>();
const api = (user: string, p: string, init: RequestInit = {}) => as.get(user)!.api(p, init);
const send = (user: string, method: string, p: string, body?: unknown) =>
  api(user, p, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
type Json = Record<string, unknown> & { error?: string };
const body = async (res: Response) => (await res.json()) as Json;

beforeAll(async () => {
  server = await startTestServer({ CRAWLER_TOKEN });
  for (const p of PERSONAS) as.set(p.username, await signIn(server.url, p.username));
});
afterAll(async () => server?.close());

const ADMIN: Role[] = ["CONNECTOR_ADMIN"];
const ADMIN_HDAB: Role[] = ["CONNECTOR_ADMIN", "HDAB_AUTHORITY"];
const STAFF: Role[] = [
  "CONNECTOR_ADMIN",
  "HDAB_AUTHORITY",
  "DATA_HOLDER",
  "DATA_USER",
  "TRUST_CENTER_OPERATOR",
  "CONNECTOR_USER_PARTICIPANT",
];

const MATRIX: { method: string; path: string; roles: Role[] | "any" | "public" }[] = [
  { method: "GET", path: "/api/credentials", roles: STAFF },
  { method: "GET", path: "/api/credentials/definitions", roles: STAFF },
  {
    method: "POST",
    path: "/api/credentials/request",
    roles: ["CONNECTOR_ADMIN", "CONNECTOR_USER_PARTICIPANT"],
  },
  {
    method: "DELETE",
    path: "/api/credentials/urn:uuid:00000000-0000-0000-0000-000000000000",
    roles: ADMIN_HDAB,
  },
  { method: "GET", path: "/api/admin/policies", roles: ADMIN_HDAB },
  { method: "POST", path: "/api/admin/policies", roles: ADMIN_HDAB },
  { method: "PUT", path: "/api/admin/policies", roles: ADMIN_HDAB },
  { method: "DELETE", path: "/api/admin/policies", roles: ADMIN_HDAB },
  { method: "GET", path: "/api/odrl/scope", roles: "any" },
  { method: "GET", path: "/api/admin/audit", roles: ADMIN_HDAB },
  { method: "GET", path: "/api/admin/audit/retention", roles: ADMIN_HDAB },
  { method: "POST", path: "/api/admin/audit/retention", roles: ADMIN_HDAB },
  { method: "GET", path: "/api/admin/tenants", roles: ADMIN },
  { method: "GET", path: "/api/admin/participants", roles: ADMIN },
  { method: "POST", path: "/api/admin/participants", roles: ADMIN },
  { method: "DELETE", path: "/api/admin/participants", roles: ADMIN },
  { method: "GET", path: "/api/admin/components", roles: ADMIN },
  { method: "GET", path: "/api/admin/components/topology", roles: ADMIN },
  { method: "GET", path: "/api/admin/components/connector/diagnosis", roles: ADMIN },
  { method: "POST", path: "/api/admin/components/nothing-here/restart", roles: ADMIN },
  { method: "GET", path: "/api/trust-center", roles: ["TRUST_CENTER_OPERATOR", "CONNECTOR_ADMIN"] },
  { method: "GET", path: "/api/debug/phase26", roles: ADMIN },
  { method: "GET", path: "/api/keycloak-config", roles: "public" },
  { method: "GET", path: "/api/mock-dsp/lmc/catalog/request", roles: "any" },
];

describe("authorisation of the governance routes", () => {
  it.each(MATRIX)("$method $path", async ({ method, path: p, roles }) => {
    const init = {
      method,
      redirect: "manual" as const,
      headers: (method === "GET" || method === "DELETE"
        ? {}
        : { "content-type": "application/json" }) as Record<string, string>,
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    };
    const anon = await fetch(`${server.url}${p}`, init);
    expect(anon.headers.get("content-type")).toMatch(/application\/json/);
    if (roles === "public") expect(anon.status).toBe(200);
    else {
      expect(anon.status).toBe(401);
      expect((await body(anon)).error).toBe("Authentication required");
    }
    if (roles === "public") return;
    for (const persona of PERSONAS) {
      const res = await api(persona.username, p, init);
      const admitted = roles === "any" || roles.some((r) => persona.roles.includes(r));
      const b = await body(res);
      if (admitted)
        expect([401, 403], `${persona.username} admitted, got ${res.status} ${b.error}`).not.toContain(
          res.status,
        );
      else {
        expect(res.status, `${persona.username} refused`).toBe(403);
        expect(b.error).toMatch(/role/);
      }
    }
  });
});

describe("credentials", () => {
  it("lists W3C verifiable credentials with their verification", async () => {
    const res = await api("admin", "/api/credentials");
    expect(res.status).toBe(200);
    const list = (await res.json()) as Json[];
    expect(list.length).toBeGreaterThanOrEqual(5);
    for (const c of list) {
      expect(c).toMatchObject({
        id: expect.stringMatching(/^urn:uuid:/),
        type: expect.arrayContaining(["VerifiableCredential"]),
        issuer: expect.stringMatching(/^did:/),
        credentialSubject: expect.any(Object),
        issuanceDate: expect.any(String),
        proof: expect.objectContaining({ jwt: expect.any(String) }),
      });
      expect(c.verification).toMatchObject({ verified: true, reason: null });
    }
    expect(list.map((c) => (c.type as string[])[1])).toContain("EHDSParticipantCredential");
    // a participant sees only its own organisation's credentials
    const own = (await (await api("researcher", "/api/credentials")).json()) as Json[];
    expect(own.length).toBeGreaterThan(0);
    for (const c of own) expect((c.credentialSubject as Json).id).toBe("did:web:pharmaco.de:research");
    expect(await (await api("trustcenter", "/api/credentials")).json()).toEqual([]);
    expect((await api("researcher", "/api/credentials?participantId=lmc")).status).toBe(403);
  });

  it("offers the three EHDS credential types from the issuer", async () => {
    const defs = (await (await api("researcher", "/api/credentials/definitions")).json()) as Json[];
    expect(defs.map((d) => d.credentialType).sort()).toEqual([
      "DataProcessingPurposeCredential",
      "DataQualityLabelCredential",
      "EHDSParticipantCredential",
    ]);
    expect(defs.every((d) => typeof d.id === "string" && typeof d.proves === "string")).toBe(true);
  });

  it("refuses incomplete and foreign requests with clear errors", async () => {
    for (const b of [
      {},
      { participantContextId: "pharmaco" },
      { credentialType: "DataQualityLabelCredential" },
      { participantContextId: " ", credentialType: "X" },
    ]) {
      const res = await send("admin", "POST", "/api/credentials/request", b);
      expect(res.status).toBe(400);
      expect((await body(res)).error).toBe("participantContextId and credentialType are required");
    }
    const unknownType = await send("admin", "POST", "/api/credentials/request", {
      participantContextId: "lmc",
      credentialType: "NoSuchCredential",
    });
    expect(unknownType.status).toBe(400);
    expect((await body(unknownType)).error).toBe("The issuer offers no credential of type NoSuchCredential");
    const foreign = await send("researcher", "POST", "/api/credentials/request", {
      participantContextId: "lmc",
      credentialType: "DataProcessingPurposeCredential",
    });
    expect(foreign.status).toBe(403);
    expect((await body(foreign)).error).toMatch(/own organisation/);
    const nobody = await send("admin", "POST", "/api/credentials/request", {
      participantContextId: "no-such-participant",
      credentialType: "DataQualityLabelCredential",
    });
    expect(nobody.status).toBe(404);
  });

  it("starts a real issuance (201); the issued credential verifies; revoked (204), it fails verification", async () => {
    const started = await send("researcher", "POST", "/api/credentials/request", {
      participantContextId: "pharmaco",
      credentialType: "DataProcessingPurposeCredential",
    });
    expect(started.status).toBe(201);
    const s = await body(started);
    expect(s).toMatchObject({
      status: "REQUESTED",
      participantContextId: "pharmaco",
      credentialType: "DataProcessingPurposeCredential",
      holderPid: expect.any(String),
      issuerDid: expect.stringMatching(/^did:web:/),
    });
    let issued: Json | undefined;
    for (let i = 0; i < 50 && !issued; i++) {
      const list = (await (await api("researcher", "/api/credentials")).json()) as Json[];
      issued = list.find((c) => (c.type as string[]).includes("DataProcessingPurposeCredential"));
      if (!issued) await new Promise((r) => setTimeout(r, 100));
    }
    expect(issued, "the issuer issued the credential").toBeDefined();
    expect(issued).toMatchObject({ status: "valid", verification: { verified: true } });
    expect((issued!.credentialSubject as Json).purpose).toBe("SCIENTIFIC_RESEARCH");

    const revoke = await api("regulator", `/api/credentials/${encodeURIComponent(String(issued!.id))}`, {
      method: "DELETE",
    });
    expect(revoke.status).toBe(204);
    const after = ((await (await api("researcher", "/api/credentials")).json()) as Json[]).find(
      (c) => c.id === issued!.id,
    )!;
    expect(after.status).toBe("revoked");
    expect(after.verification).toMatchObject({
      verified: false,
      checks: {
        signature: { ok: true },
        revocation: {
          ok: false,
          detail: expect.stringMatching(/^revoked: bit \d+ of the issuer's status list is set/),
        },
      },
    });
    // other credentials still verify
    const others = ((await (await api("admin", "/api/credentials")).json()) as Json[]).filter(
      (c) => c.id !== issued!.id,
    );
    expect(others.every((c) => (c.verification as Json).verified === true)).toBe(true);
  });

  it("answers 404 for an unknown credential", async () => {
    const res = await api("admin", "/api/credentials/urn:uuid:11111111-2222-3333-4444-555555555555", {
      method: "DELETE",
    });
    expect(res.status).toBe(404);
    expect((await body(res)).error).toBe("Credential not found");
  });
});

const offer = (id: string, extra: Json = {}) => ({
  "@id": id,
  "@type": "PolicyDefinition",
  policy: {
    "@type": "Offer",
    assigner: "did:web:lmc.nl:participant",
    permission: [
      {
        action: "use",
        constraint: [{ leftOperand: "purpose", operator: "isAnyOf", rightOperand: ["scientificResearch"] }],
      },
    ],
    prohibition: [{ action: "ehds:reIdentify" }],
    obligation: [{ action: "anonymize" }],
    ...extra,
  },
});

describe("ODRL policies", () => {
  it("refuses a POST without participantId or policy", async () => {
    for (const b of [
      {},
      { participantId: "lmc" },
      { policy: offer("x") },
      { participantId: "", policy: offer("x") },
    ]) {
      const res = await send("admin", "POST", "/api/admin/policies", b);
      expect(res.status).toBe(400);
      expect((await body(res)).error).toBe("participantId and policy are required");
    }
  });

  it("names what is wrong with an invalid ODRL policy", async () => {
    const cases: [unknown, RegExp][] = [
      [
        { "@id": "bad-1", policy: { permission: [{ action: "use" }] } },
        /^Invalid ODRL 2.2 policy: policy.policy.@type is required: Set, Offer or Agreement$/,
      ],
      [
        { "@id": "bad-2", policy: { "@type": "Set" } },
        /needs at least one permission, prohibition or obligation/,
      ],
      [
        { "@id": "bad-3", policy: { "@type": "Set", permission: [{ action: "download" }] } },
        /policy.policy.permission\[0\].action "download" is not an ODRL 2.2 action/,
      ],
      [
        offer("bad-4", {
          permission: [
            {
              action: "use",
              constraint: [{ leftOperand: "purpose", operator: "equals", rightOperand: "x" }],
            },
          ],
        }),
        /constraint\[0\].operator "equals" is not an ODRL 2.2 operator/,
      ],
      [
        { "@id": "bad-5", policy: { "@type": "Offer", permission: [{ action: "use" }] } },
        /an Offer must name its assigner/,
      ],
      [
        {
          "@id": "bad-6",
          policy: { "@type": "Agreement", assigner: "did:web:a.example", permission: [{ action: "use" }] },
        },
        /an Agreement must name its assignee/,
      ],
      [
        { "@id": "bad 7", policy: { "@type": "Set", permission: [{ action: "use" }] } },
        /policy.@id must start/,
      ],
    ];
    for (const [policy, pattern] of cases) {
      const res = await send("regulator", "POST", "/api/admin/policies", { participantId: "lmc", policy });
      const b = await body(res);
      expect(res.status, JSON.stringify(policy)).toBe(400);
      expect(b.error).toMatch(pattern);
      expect(b.problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: expect.any(String), message: expect.any(String) }),
        ]),
      );
    }
  });

  it("creates, lists, replaces and deletes a policy, pushed to the connector", async () => {
    const created = await send("admin", "POST", "/api/admin/policies", {
      participantId: "lmc",
      policy: offer("offer-test-research"),
    });
    expect(created.status).toBe(201);
    expect(await body(created)).toMatchObject({
      "@id": "offer-test-research",
      "@type": "PolicyDefinition",
      policy: {
        "@type": "Offer",
        permission: expect.any(Array),
        prohibition: expect.any(Array),
        obligation: expect.any(Array),
      },
      participantId: "lmc",
      version: 1,
      connector: { state: "in-sync" },
    });
    // really at the connector, as a policy definition of that participant context
    const atConnector = await server.services.dataspace.runtime.connector.listPolicyDefinitions("lmc");
    expect(atConnector.map((d) => d["@id"])).toContain("offer-test-research");

    const dup = await send("admin", "POST", "/api/admin/policies", {
      participantId: "lmc",
      policy: offer("offer-test-research"),
    });
    expect(dup.status).toBe(409);
    const unknownParticipant = await send("admin", "POST", "/api/admin/policies", {
      participantId: "no-such-context",
      policy: offer("p"),
    });
    expect(unknownParticipant.status).toBe(404);

    const list = (await (await api("regulator", "/api/admin/policies?participantId=lmc")).json()) as Json[];
    expect(list.map((p) => p["@id"])).toEqual(
      expect.arrayContaining(["offer-test-research", "policy-secondary-use"]),
    );
    for (const p of list)
      expect(p).toMatchObject({
        "@id": expect.any(String),
        "@type": expect.any(String),
        policy: {
          "@type": expect.stringMatching(/^(Set|Offer|Agreement)$/),
          permission: expect.any(Array),
          prohibition: expect.any(Array),
          obligation: expect.any(Array),
        },
      });
    const all = (await (await api("admin", "/api/admin/policies")).json()) as Json[];
    expect(new Set(all.map((p) => p.participantId)).size).toBeGreaterThanOrEqual(5);

    const missing = await send("admin", "PUT", "/api/admin/policies", {
      participantId: "lmc",
      policy: offer("offer-test-research"),
    });
    expect(missing.status).toBe(400);
    expect((await body(missing)).error).toBe("policyId, participantId, and policy are required");
    const mismatch = await send("admin", "PUT", "/api/admin/policies", {
      policyId: "offer-test-research",
      participantId: "lmc",
      policy: offer("other-id"),
    });
    expect(mismatch.status).toBe(400);
    const replaced = await send("regulator", "PUT", "/api/admin/policies", {
      policyId: "offer-test-research",
      participantId: "lmc",
      policy: offer("offer-test-research", {
        obligation: [
          { action: "anonymize" },
          {
            action: "delete",
            constraint: [{ leftOperand: "elapsedTime", operator: "lteq", rightOperand: "P1Y" }],
          },
        ],
      }),
    });
    expect(replaced.status).toBe(200);
    const r = await body(replaced);
    expect(r).toMatchObject({ version: 2, updatedBy: "regulator" });
    // the embedded development connector has no PUT of policy definitions: the answer says so
    expect(r.connector).toMatchObject({
      state: "hub-newer",
      detail: expect.stringMatching(/embedded development connector/),
    });
    const notThere = await send("admin", "PUT", "/api/admin/policies", {
      policyId: "no-such-policy",
      participantId: "lmc",
      policy: offer("no-such-policy"),
    });
    expect(notThere.status).toBe(404);

    const noId = await api("admin", "/api/admin/policies", { method: "DELETE" });
    expect(noId.status).toBe(400);
    expect((await body(noId)).error).toBe("policyId query parameter is required");
    expect(
      (await api("admin", "/api/admin/policies?policyId=no-such-policy", { method: "DELETE" })).status,
    ).toBe(404);
    const deleted = await api("admin", "/api/admin/policies?policyId=offer-test-research", {
      method: "DELETE",
    });
    expect(deleted.status).toBe(204);
    const after = (await (await api("admin", "/api/admin/policies?participantId=lmc")).json()) as Json[];
    expect(after.map((p) => p["@id"])).not.toContain("offer-test-research");
    const seeded = await api("admin", "/api/admin/policies?policyId=policy-secondary-use&participantId=lmc", {
      method: "DELETE",
    });
    expect(seeded.status).toBe(409);

    const trail = (await (await api("admin", "/api/admin/audit?kind=policy")).json()) as Json[];
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(["policy.create", "policy.update", "policy.delete"]),
    );
  });

  it("computes each caller's effective scope from their identity", async () => {
    const researcher = await body(await api("researcher", "/api/odrl/scope"));
    expect(researcher.subject).toMatchObject({ username: "researcher", did: "did:web:pharmaco.de:research" });
    expect(researcher.standing).toContain("consumer");
    for (const k of ["permissions", "prohibitions", "obligations", "accessibleDatasets", "grants"])
      expect(Array.isArray(researcher[k]), k).toBe(true);
    expect((researcher.prohibitions as Json[]).map((p) => p.action)).toContain("ehds:reIdentify");
    expect(researcher.hdabApproval).toMatchObject({
      exists: expect.any(Boolean),
      granted: expect.any(Number),
    });
    expect(researcher.activeContract).toMatchObject({
      exists: expect.any(Boolean),
      count: expect.any(Number),
    });
    // an effective grant needs an active contract, a GRANTED permit and an unexpired limit
    for (const g of researcher.grants as Json[]) {
      if (g.effective) expect(g).toMatchObject({ contractStatus: "active", permit: { status: "GRANTED" } });
      else expect(g.reason).toEqual(expect.any(String));
    }
    const effective = new Set(
      (researcher.grants as Json[]).filter((g) => g.effective).map((g) => g.datasetId),
    );
    expect(new Set((researcher.accessibleDatasets as Json[]).map((d) => d.id))).toEqual(effective);
    // only the caller's own agreements: never those of another data user
    expect((researcher.grants as Json[]).length).toBe(3);

    const clinic = await body(await api("clinic", "/api/odrl/scope"));
    expect(clinic.standing).toContain("provider");
    expect((clinic.accessibleDatasets as Json[]).length).toBeGreaterThan(0);
    expect((clinic.accessibleDatasets as Json[]).every((d) => d.via === "holder")).toBe(true);

    const admin = await body(await api("admin", "/api/odrl/scope"));
    expect(admin).toMatchObject({
      standing: ["operator"],
      accessibleDatasets: [],
      hdabApproval: { exists: false },
      activeContract: { exists: false },
    });
    const patient = await body(await api("patient1", "/api/odrl/scope"));
    expect(patient.permissions).toEqual([
      expect.objectContaining({ action: "read", target: "patient-000001" }),
    ]);
  });
});

describe("audit", () => {
  it("lists entries newest first with the hash chain, limit 100 by default and 1000 at most", async () => {
    const res = await api("regulator", "/api/admin/audit");
    expect(res.status).toBe(200);
    const list = (await res.json()) as Json[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThanOrEqual(100);
    for (const e of list)
      expect(e).toMatchObject({
        id: expect.any(String),
        action: expect.any(String),
        actor: expect.any(String),
        target: expect.any(String),
        outcome: expect.any(String),
        timestamp: expect.any(String),
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    const seqs = list.map((e) => e.seq as number);
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
    expect((await api("admin", "/api/admin/audit?limit=1000")).status).toBe(200);
    for (const bad of ["limit=1001", "limit=0", "limit=abc", "since=yesterday", "before=x"]) {
      const r = await api("admin", `/api/admin/audit?${bad}`);
      expect(r.status, bad).toBe(400);
    }
    expect((await body(await api("admin", "/api/admin/audit?limit=1001"))).error).toBe(
      "limit must be between 1 and 1000",
    );
  });

  it("filters by kind, actor, outcome, text, period and page", async () => {
    const byKind = (await (
      await api("admin", "/api/admin/audit?kind=dataspace&limit=1000")
    ).json()) as Json[];
    expect(byKind.length).toBeGreaterThan(0);
    expect(byKind.every((e) => e.kind === "dataspace")).toBe(true);
    const byActor = (await (await api("admin", "/api/admin/audit?actor=regulator")).json()) as Json[];
    expect(byActor.every((e) => e.actor === "regulator")).toBe(true);
    const text = (await (await api("admin", "/api/admin/audit?q=CREDENTIAL")).json()) as Json[];
    expect(text.length).toBeGreaterThan(0);
    expect(text.every((e) => /credential/i.test(`${e.action} ${e.actor} ${e.target}`))).toBe(true);
    const future = (await (await api("admin", "/api/admin/audit?since=2100-01-01")).json()) as Json[];
    expect(future).toEqual([]);
    const page1 = (await (await api("admin", "/api/admin/audit?limit=2")).json()) as Json[];
    const page2 = (await (
      await api("admin", `/api/admin/audit?limit=2&before=${page1[1]!.seq as number}`)
    ).json()) as Json[];
    expect(page2[0]!.seq).toBe((page1[1]!.seq as number) - 1);
  });

  it("verifies the chain", async () => {
    const v = await body(await api("admin", "/api/admin/audit?verify=true"));
    expect(v).toMatchObject({ ok: true, checked: expect.any(Number), entries: expect.any(Number) });
    expect(v.checked).toBe(v.entries);
  });

  it("keeps retention per kind and refuses to go below the statutory minimum", async () => {
    const r = await body(await api("regulator", "/api/admin/audit/retention"));
    const kinds = r.kinds as Json[];
    const consent = kinds.find((k) => k.kind === "consent")!;
    expect(consent).toMatchObject({
      minimumDays: 1096,
      days: 1096,
      statutory: true,
      basis: expect.stringMatching(/Art\. 9\(2\)/),
    });
    expect(kinds.find((k) => k.kind === "dataspace")).toMatchObject({
      minimumDays: 366,
      basis: expect.stringMatching(/Art\. 73/),
    });
    expect(r.maximumDays).toBe(3653);

    const below = await send("regulator", "POST", "/api/admin/audit/retention", {
      kind: "consent",
      days: 365,
    });
    expect(below.status).toBe(400);
    const b = await body(below);
    expect(b.error).toMatch(
      /^Retention for consent cannot be shorter than 1096 days \(Regulation \(EU\) 2025\/327 \(EHDS\) Art\. 9\(2\)/,
    );
    expect(b.minimumDays).toBe(1096);
    const unknownKind = await send("admin", "POST", "/api/admin/audit/retention", {
      kind: "something-new",
      days: 400,
    });
    expect(unknownKind.status).toBe(400);
    expect(
      (await send("admin", "POST", "/api/admin/audit/retention", { kind: "consent", days: 4000 })).status,
    ).toBe(400);
    for (const bad of [{}, { kind: "consent" }, { days: 2000 }]) {
      const res = await send("admin", "POST", "/api/admin/audit/retention", bad);
      expect(res.status).toBe(400);
      expect((await body(res)).error).toBe("kind and days are required");
    }
    expect(
      (await send("admin", "POST", "/api/admin/audit/retention", { kind: "consent", days: 12.5 })).status,
    ).toBe(400);

    const set = await send("regulator", "POST", "/api/admin/audit/retention", {
      kind: "consent",
      days: 1500,
    });
    expect(set.status).toBe(200);
    expect(await body(set)).toMatchObject({ kind: "consent", days: 1500, source: "set", setBy: "regulator" });
    expect(await body(await api("admin", "/api/admin/audit/retention?kind=consent"))).toMatchObject({
      days: 1500,
    });
    const purge = await send("admin", "POST", "/api/admin/audit/retention", { action: "purge" });
    expect(purge.status).toBe(200);
    expect(await body(purge)).toMatchObject({ total: 0, purged: {} });
    const trail = (await (await api("admin", "/api/admin/audit?kind=audit")).json()) as Json[];
    expect(trail[0]).toMatchObject({
      action: "audit.retention.set",
      target: "consent",
      outcome: "1500 days",
      actor: "regulator",
    });
  });
});

describe("operator console", () => {
  it("lists the tenants of the tenant manager", async () => {
    const tenants = (await (await api("admin", "/api/admin/tenants")).json()) as Json[];
    expect(tenants.length).toBeGreaterThanOrEqual(5);
    const lmc = tenants.find((t) => t.displayName === "Limburg Medical Centre")!;
    expect(lmc.participants).toEqual([expect.objectContaining({ did: "did:web:lmc.nl:participant" })]);
  });

  it("keeps the crawler's participant directory: DIDs validated, seeded entries kept", async () => {
    const list = (await (await api("admin", "/api/admin/participants")).json()) as Json[];
    expect(
      list
        .filter((e) => e.source === "seeded")
        .map((e) => e.did)
        .sort(),
    ).toEqual([
      "did:web:alpha-klinik.de:participant",
      "did:web:irs.fr:research",
      "did:web:lmc.nl:participant",
      "did:web:medreg.de:hdab",
      "did:web:pharmaco.de:research",
    ]);
    expect(list[0]!.catalogueUrl).toMatch(new RegExp(`^${server.url}/api/mock-dsp/.+/catalog/request$`));
    const missing = await send("admin", "POST", "/api/admin/participants", { did: "did:web:x.example" });
    expect((await body(missing)).error).toBe("did and displayName are required");
    for (const did of [
      "not-a-did",
      "did:web",
      "did:Web:x.example",
      "did:web:",
      "did:web:-x-.example",
      "did:web:exa mple.org",
    ]) {
      const res = await send("admin", "POST", "/api/admin/participants", { did, displayName: "X" });
      expect(res.status, did).toBe(400);
      expect((await body(res)).error).toMatch(/did/);
    }
    const bad = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:x.example",
      displayName: "X",
      catalogueUrl: "ftp://x",
    });
    expect(bad.status).toBe(400);
    const added = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:ziekenhuis.example.be:participant",
      displayName: "Ziekenhuis Example",
      country: "be",
    });
    expect(added.status).toBe(201);
    expect(await body(added)).toMatchObject({
      id: "ziekenhuis-example",
      source: "added",
      country: "BE",
      catalogueUrl: null,
      addedBy: "admin",
    });
    expect(
      (
        await send("admin", "POST", "/api/admin/participants", {
          did: "did:web:ziekenhuis.example.be:participant",
          displayName: "Again",
        })
      ).status,
    ).toBe(409);
    const seeded = await api("admin", "/api/admin/participants?did=did:web:lmc.nl:participant", {
      method: "DELETE",
    });
    expect(seeded.status).toBe(409);
    expect((await body(seeded)).error).toMatch(/^Seeded directory entries cannot be deleted/);
    expect((await api("admin", "/api/admin/participants", { method: "DELETE" })).status).toBe(400);
    expect(
      (await api("admin", "/api/admin/participants?did=did:web:nobody.example", { method: "DELETE" })).status,
    ).toBe(404);
    expect(
      (
        await api("admin", "/api/admin/participants?did=did:web:ziekenhuis.example.be:participant", {
          method: "DELETE",
        })
      ).status,
    ).toBe(204);
  });

  it("probes every component for real, with version and url", async () => {
    const list = (await (await api("admin", "/api/admin/components")).json()) as Json[];
    expect(list.map((c) => c.name)).toEqual([
      "graph-store",
      "identity-provider",
      "connector",
      "tenant-manager",
      "issuer",
      "identity-hub",
      "language-backend",
    ]);
    for (const c of list) {
      expect(c).toMatchObject({
        name: expect.any(String),
        kind: expect.any(String),
        version: expect.any(String),
        url: expect.any(String),
        health: "up",
      });
      expect(c.observed).toEqual(expect.any(String));
    }
    expect(list.find((c) => c.name === "connector")!.observed).toMatch(/5 participant contexts/);
    expect(list.find((c) => c.name === "identity-provider")!.url).toBe(`${server.url}/idp`);
  });

  it("draws the topology, diagnoses and restarts", async () => {
    const t = await body(await api("admin", "/api/admin/components/topology"));
    const ids = (t.nodes as Json[]).map((n) => n.id);
    expect(ids).toEqual(
      expect.arrayContaining(["hub", "graph-store", "connector", "issuer", "identity-hub"]),
    );
    for (const e of t.edges as Json[]) {
      expect(ids).toContain(e.source);
      expect(ids).toContain(e.target);
    }
    const d = await body(await api("admin", "/api/admin/components/issuer/diagnosis"));
    expect(d).toMatchObject({
      component: { name: "issuer", health: "up" },
      probe: { call: expect.stringMatching(/credentialdefinitions/), observed: "3 credential definitions" },
      lastError: null,
      remedy: expect.any(Array),
    });
    const unknown = await api("admin", "/api/admin/components/nothing/diagnosis");
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).error).toMatch(/^No component nothing/);

    for (const name of ["graph-store", "language-backend"]) {
      const refused = await api("admin", `/api/admin/components/${name}/restart`, { method: "POST" });
      expect(refused.status, name).toBe(409);
      expect((await body(refused)).error).toMatch(new RegExp(`^Cannot restart ${name}: `));
    }
    const restarted = await api("admin", "/api/admin/components/connector/restart", { method: "POST" });
    expect(restarted.status).toBe(200);
    const rb = await body(restarted);
    expect(rb, JSON.stringify(rb.component)).toMatchObject({
      name: "connector",
      restarted: true,
      alsoRestarted: ["tenant-manager", "issuer", "identity-hub"],
      component: { health: "up" },
    });
    // the dataspace works after the restart
    expect((await api("researcher", "/api/participants")).status).toBe(200);
    const creds = (await (await api("admin", "/api/credentials")).json()) as Json[];
    expect(creds.length).toBeGreaterThan(0);
    const idp = await api("admin", "/api/admin/components/identity-provider/restart", { method: "POST" });
    expect(idp.status).toBe(200);
    expect((await signIn(server.url, "clinic")).cookie).toMatch(/session-token/);
    const after = await body(await api("admin", "/api/admin/components/connector/diagnosis"));
    expect(after.lastRestart).toMatchObject({
      by: "admin",
      outcome: expect.stringMatching(/embedded local dataspace restarted/),
    });
    const trail = (await (await api("admin", "/api/admin/audit?action=component.restart")).json()) as Json[];
    expect(trail.map((e) => e.target)).toEqual(expect.arrayContaining(["connector", "graph-store"]));
  });

  it("checks federated discovery without changing anything", async () => {
    const before = ((await (await api("admin", "/api/admin/audit?limit=1")).json()) as Json[])[0]!.seq;
    const c = await body(await api("admin", "/api/debug/phase26"));
    expect(c).toMatchObject({
      readOnly: true,
      crawler: { tokenConfigured: true },
      participants: { total: expect.any(Number) },
    });
    expect((c.targets as Json[]).filter((t) => t.kind === "hub" && t.reachable === true).length).toBe(5);
    expect((c.federatedDatasets as Json[]).length).toBe(8);
    expect(c.totals).toMatchObject({ datasets: 8, offers: 8 });
    const afterSeq = ((await (await api("admin", "/api/admin/audit?limit=1")).json()) as Json[])[0]!.seq;
    expect(afterSeq).toBe(before);
  });

  it("tells where the identity provider is, without a session or a secret", async () => {
    const res = await fetch(`${server.url}/api/keycloak-config`);
    const b = await body(res);
    expect(b).toMatchObject({
      issuer: `${server.url}/idp`,
      embedded: true,
      discovery: `${server.url}/idp/.well-known/openid-configuration`,
      signIn: "/auth/signin",
    });
    expect(JSON.stringify(b)).not.toMatch(/secret/i);
  });
});

describe("sign-in routes (/api/auth/*)", () => {
  it("answers the session, the providers and the sign-in redirects without a session", async () => {
    expect(await body(await fetch(`${server.url}/api/auth/session`))).toEqual({});
    const mine = await body(await api("regulator", "/api/auth/session"));
    expect(mine).toMatchObject({
      user: { username: "regulator", roles: ["HDAB_AUTHORITY"], organisation: "MedReg DE" },
      expires: expect.any(String),
    });
    const providers = await body(await fetch(`${server.url}/api/auth/providers`));
    expect(providers).toMatchObject({
      oidc: { id: "oidc", issuer: `${server.url}/idp`, signinUrl: "/api/auth/signin/oidc" },
      "eudi-wallet": { signinUrl: "/api/auth/eudi/start" },
    });
    expect(await body(await fetch(`${server.url}/api/auth/csrf`))).toMatchObject({ csrfToken: null });

    const start = await fetch(`${server.url}/api/auth/signin/oidc?callbackUrl=%2Fcredentials`, {
      redirect: "manual",
    });
    expect(start.status).toBe(303);
    expect(start.headers.get("location")).toBe("/auth/login?returnTo=%2Fcredentials");
    expect(start.headers.get("content-type")).toMatch(/application\/json/);
    const offsite = await fetch(`${server.url}/api/auth/signin?callbackUrl=https%3A%2F%2Fevil.example%2F`, {
      method: "POST",
      redirect: "manual",
    });
    expect(offsite.headers.get("location")).toBe("/auth/signin?returnTo=%2F");
    const unknown = await fetch(`${server.url}/api/auth/nothing-here`);
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).error).toMatch(/^Not found/);
    expect((await fetch(`${server.url}/api/auth/signin/github`)).status).toBe(404);
  });

  it("signs out through POST /api/auth/signout", async () => {
    const s = await signIn(server.url, "lmc");
    const out = await s.api("/api/auth/signout", { method: "POST" });
    expect(out.status).toBe(200);
    expect((await body(out)).url).toMatch(/\/idp\/session\/end|\/auth\/signin/);
    expect(out.headers.getSetCookie().join(";")).toMatch(/app-auth\.session-token=;/);
    expect(await body(await s.api("/api/auth/session"))).toEqual({});
    expect((await s.api("/api/credentials")).status).toBe(401);
  });
});

describe("demonstration DSP catalogue", () => {
  it("answers a dcat:Catalog with odrl:hasPolicy offers to the crawler's token or a session", async () => {
    const res = await fetch(`${server.url}/api/mock-dsp/lmc/catalog/request`, {
      headers: { authorization: `Bearer ${CRAWLER_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const cat = await body(res);
    expect(cat).toMatchObject({
      "@type": "dcat:Catalog",
      "dspace:participantId": "did:web:lmc.nl:participant",
      "@context": expect.objectContaining({
        dcat: "http://www.w3.org/ns/dcat#",
        odrl: "http://www.w3.org/ns/odrl/2/",
      }),
    });
    const datasets = cat["dcat:dataset"] as Json[];
    expect(datasets.length).toBe(4);
    for (const d of datasets) {
      expect(d["@type"]).toBe("dcat:Dataset");
      const offers = d["odrl:hasPolicy"] as Json[];
      expect(offers[0]).toMatchObject({
        "@type": "odrl:Offer",
        "odrl:assigner": { "@id": "did:web:lmc.nl:participant" },
        "odrl:target": { "@id": d["@id"] },
      });
    }
    const post = await fetch(`${server.url}/api/mock-dsp/did:web:lmc.nl:participant/catalog/request`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRAWLER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ "@type": "CatalogRequestMessage" }),
    });
    expect(post.status).toBe(200);
    expect(((await body(post))["dcat:dataset"] as Json[]).length).toBe(4);
    const wrongType = await fetch(`${server.url}/api/mock-dsp/lmc/catalog/request`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRAWLER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ "@type": "ContractRequestMessage" }),
    });
    expect(wrongType.status).toBe(400);
    expect(
      (
        await fetch(`${server.url}/api/mock-dsp/lmc/catalog/request`, {
          headers: { authorization: "Bearer wrong-token-wrong-token-wrong" },
        })
      ).status,
    ).toBe(401);
    expect((await api("patient1", "/api/mock-dsp/alphaklinik-berlin/catalog/request")).status).toBe(200);
    const empty = await body(await api("admin", "/api/mock-dsp/pharmaco/catalog/request"));
    expect(empty["dcat:dataset"]).toEqual([]);
    expect((await api("admin", "/api/mock-dsp/nobody/catalog/request")).status).toBe(404);
  });
});

describe("trust center", () => {
  it("derives trust centers, pseudonym domains, recognition and processing sessions", async () => {
    const v = await body(await api("trustcenter", "/api/trust-center"));
    const centres = v.trustCenters as Json[];
    expect(centres.map((c) => c.country)).toEqual(["DE", "FR", "NL"]);
    expect(centres.find((c) => c.country === "DE")!.accessBody).toMatchObject({
      did: "did:web:medreg.de:hdab",
    });
    const domains = (v.pseudonymResolution as Json).datasets as Json[];
    expect(domains.length).toBe(11);
    // the EHR datasets of the two holders cover every synthetic patient once
    const ehr = domains.filter((d) => /-ehr$/.test(String(d.datasetId)));
    expect(ehr.reduce((s, d) => s + (d.patients as number), 0)).toBe(40);
    const sessions = v.speSessions as Json[];
    // one session per issued permit (4 granted, 1 revoked); none for the application under assessment
    expect(sessions.length).toBe(5);
    for (const s of sessions)
      expect(s).toMatchObject({
        k: 5,
        outputPolicy: {
          aggregateOnly: true,
          minimumCellSize: 5,
          prohibited: expect.arrayContaining(["ehds:reIdentify"]),
        },
      });
    expect(sessions.map((s) => s.state)).toEqual(expect.arrayContaining(["terminated", "active"]));
    expect(sessions.map((s) => s.state)).not.toContain("scheduled");
    const flows = (v.mutualRecognition as Json).crossBorderFlows as Json[];
    expect(flows.map((f) => `${f.providerCountry}->${f.consumerCountry}`)).toEqual(
      expect.arrayContaining(["NL->DE", "NL->FR"]),
    );
    expect(flows.find((f) => f.providerCountry === "NL" && f.consumerCountry === "FR")).toMatchObject({
      covered: false,
      recognition: "pending",
    });
    expect(v.summary).toMatchObject({ trustCenters: 3, pseudonymisedDatasets: 11, patientsCovered: 40 });
  });
});

describe("a tampered audit file", () => {
  it("is detected by the chain verification, at the first broken entry", async () => {
    const file = path.join(server.dataDir, "hub.sqlite");
    const entries = (await (await api("admin", "/api/admin/audit?limit=1000")).json()) as Json[];
    const victim = entries[Math.floor(entries.length / 2)]!;
    const db = new Database(file);
    try {
      // the database refuses the edit; an attacker with the file drops the guard first
      expect(() =>
        db.prepare("UPDATE audit_entries SET outcome = 'forged' WHERE seq = ?").run(victim.seq),
      ).toThrow(/append-only/);
      db.exec("DROP TRIGGER audit_entries_no_update");
      db.prepare("UPDATE audit_entries SET outcome = 'forged' WHERE seq = ?").run(victim.seq);
    } finally {
      db.close();
    }
    const v = await body(await api("regulator", "/api/admin/audit?verify=true"));
    expect(v).toMatchObject({
      ok: false,
      firstBroken: { seq: victim.seq, id: victim.id, reason: "entry content does not match its hash" },
    });
    expect(v.checked).toBe((victim.seq as number) - 1);
  });
});
