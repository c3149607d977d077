import { describe, expect, it } from "vitest";
import { PERSONAS, type Role } from "../../server/auth/personas";
import { signIn } from "../support/signin";
import { type Json, body, CRAWLER_TOKEN, governanceHarness } from "./governance.support";

/**
 * Issue 4, black box: credentials, ODRL policies and scope, audit and retention, the operator
 * console, the trust center, the identity provider's address, the discovery check and the
 * demonstration DSP catalogue, against the real server with its embedded dataspace.
 *
 * This file: the authorisation matrix, credentials, audit and retention, the sign-in routes and the demonstration DSP catalogue.
 */

const h = governanceHarness();
const { api, send } = h;

/** the credential of `type` in the list `path` answers `user`, once the issuer has issued it (5 s at most) */
async function issuedCredential(user: string, path: string, type: string): Promise<Json | undefined> {
  for (let i = 0; i < 50; i++) {
    const list = (await (await api(user, path)).json()) as Json[];
    const found = list.find((c) => (c.type as string[]).includes(type));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

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
    const anon = await fetch(`${h.server.url}${p}`, init);
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
    const issued = await issuedCredential(
      "researcher",
      "/api/credentials",
      "DataProcessingPurposeCredential",
    );
    expect(issued, "the issuer issued the credential").toBeDefined();
    expect(issued).toMatchObject({ status: "valid", verification: { verified: true } });
    expect((issued!.credentialSubject as Json).purpose).toBe("SCIENTIFIC_RESEARCH");

    const revoke = await api("admin", `/api/credentials/${encodeURIComponent(String(issued!.id))}`, {
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

  // security review 30 Nov: the access body revoked LMC's participant credential (204)
  it("lets the access body revoke only what its own organisation holds, page and API; the operator any", async () => {
    const all = (await (await api("admin", "/api/credentials")).json()) as Json[];
    const lmc = all.find(
      (c) => c.participantContextId === "lmc" && (c.type as string[]).includes("EHDSParticipantCredential"),
    );
    expect(lmc, "LMC's participant credential").toBeDefined();
    const refused = await api("regulator", `/api/credentials/${encodeURIComponent(String(lmc!.id))}`, {
      method: "DELETE",
    });
    expect(refused.status).toBe(403);
    expect(await body(refused)).toEqual({
      error: "You may revoke only credentials held by your own organisation's participant context",
    });
    // by its issuer record id too, and nothing changed
    expect(
      (await api("regulator", `/api/credentials/${String(lmc!.recordId)}`, { method: "DELETE" })).status,
    ).toBe(403);
    const still = ((await (await api("admin", "/api/credentials")).json()) as Json[]).find(
      (c) => c.id === lmc!.id,
    );
    expect(still).toMatchObject({ status: "valid" });
    const unknown = await api("regulator", "/api/credentials/urn:uuid:11111111-2222-3333-4444-555555555555", {
      method: "DELETE",
    });
    expect([unknown.status, (await body(unknown)).error]).toEqual([404, "Credential not found"]);

    // the page offers revocation only on the rows of the access body's own organisation
    const page = await (await api("regulator", "/credentials")).text();
    const medreg = all.filter((c) => c.participantContextId === "medreg" && c.status === "valid");
    expect(medreg.length).toBeGreaterThan(0);
    const offered = [...page.matchAll(/href="\?revoke=([^"]+)"/g)].map((m) => decodeURIComponent(m[1]));
    expect(offered.sort()).toEqual(medreg.map((c) => String(c.id)).sort());

    // its own organisation's credential it revokes
    const started = await send("admin", "POST", "/api/credentials/request", {
      participantContextId: "medreg",
      credentialType: "DataQualityLabelCredential",
    });
    expect(started.status).toBe(201);
    const own = await issuedCredential(
      "regulator",
      "/api/credentials?participantId=medreg",
      "DataQualityLabelCredential",
    );
    expect(own, "the issuer issued MedReg's credential").toBeDefined();
    const revoked = await api("regulator", `/api/credentials/${encodeURIComponent(String(own!.id))}`, {
      method: "DELETE",
    });
    expect(revoked.status).toBe(204);
  });

  it("spans the empty row over the table's columns (five without the revoke column)", async () => {
    const page = await (await api("trustcenter", "/credentials")).text();
    const table = /<table[^>]*data-testid="credentials"[\s\S]*?<\/table>/.exec(page)?.[0] ?? "";
    const columns = table.match(/<th scope="col"/g)?.length;
    expect(columns).toBe(5);
    expect(table).toContain(`<td colSpan="${columns}" class="empty">No credentials to show`);
  });

  it("answers 404 for an unknown credential", async () => {
    const res = await api("admin", "/api/credentials/urn:uuid:11111111-2222-3333-4444-555555555555", {
      method: "DELETE",
    });
    expect(res.status).toBe(404);
    expect((await body(res)).error).toBe("Credential not found");
  });
});

describe("audit", () => {
  it("lists entries newest first with the hash chain, limit 100 by default and 1000 at most", async () => {
    const res = await api("admin", "/api/admin/audit");
    expect(res.status).toBe(200);
    const list = (await res.json()) as Json[];
    // the access body reads the same entries without their hashes (server/privacy/audit-view.ts)
    const asRegulator = (await (await api("regulator", "/api/admin/audit")).json()) as Json[];
    expect(asRegulator.length).toBeGreaterThan(0);
    expect(asRegulator.every((e) => e.hash === "" && e.prevHash === "")).toBe(true);
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
    // a day that does not exist is refused, not rolled over into the next month (since=2026-11-31 read as 1 December)
    const days = ["since=2026-11-31", "until=2026-02-29T10:00Z", "since=2026-13-01"];
    for (const bad of ["limit=1001", "limit=0", "limit=abc", "since=yesterday", "before=x", ...days]) {
      const r = await api("admin", `/api/admin/audit?${bad}`);
      expect(r.status, bad).toBe(400);
    }
    expect((await body(await api("admin", "/api/admin/audit?limit=1001"))).error).toBe(
      "limit must be between 1 and 1000",
    );
    expect((await body(await api("admin", "/api/admin/audit?since=2026-11-31"))).error).toBe(
      "since must be an ISO 8601 date or date-time",
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

describe("sign-in routes (/api/auth/*)", () => {
  it("answers the session, the providers and the sign-in redirects without a session", async () => {
    expect(await body(await fetch(`${h.server.url}/api/auth/session`))).toEqual({});
    const mine = await body(await api("regulator", "/api/auth/session"));
    expect(mine).toMatchObject({
      user: { username: "regulator", roles: ["HDAB_AUTHORITY"], organisation: "MedReg DE" },
      expires: expect.any(String),
    });
    const providers = await body(await fetch(`${h.server.url}/api/auth/providers`));
    expect(providers).toMatchObject({
      oidc: { id: "oidc", issuer: `${h.server.url}/idp`, signinUrl: "/api/auth/signin/oidc" },
      "eudi-wallet": { signinUrl: "/api/auth/eudi/start" },
    });
    expect(await body(await fetch(`${h.server.url}/api/auth/csrf`))).toMatchObject({ csrfToken: null });

    const start = await fetch(`${h.server.url}/api/auth/signin/oidc?callbackUrl=%2Fcredentials`, {
      redirect: "manual",
    });
    expect(start.status).toBe(303);
    expect(start.headers.get("location")).toBe("/auth/login?returnTo=%2Fcredentials");
    expect(start.headers.get("content-type")).toMatch(/application\/json/);
    const offsite = await fetch(`${h.server.url}/api/auth/signin?callbackUrl=https%3A%2F%2Fevil.example%2F`, {
      method: "POST",
      redirect: "manual",
    });
    expect(offsite.headers.get("location")).toBe("/auth/signin?returnTo=%2F");
    const unknown = await fetch(`${h.server.url}/api/auth/nothing-here`);
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).error).toMatch(/^Not found/);
    expect((await fetch(`${h.server.url}/api/auth/signin/github`)).status).toBe(404);
  });

  it("signs out through POST /api/auth/signout", async () => {
    const s = await signIn(h.server.url, "lmc");
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
    const res = await fetch(`${h.server.url}/api/mock-dsp/lmc/catalog/request`, {
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
    const post = await fetch(`${h.server.url}/api/mock-dsp/did:web:lmc.nl:participant/catalog/request`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRAWLER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ "@type": "CatalogRequestMessage" }),
    });
    expect(post.status).toBe(200);
    expect(((await body(post))["dcat:dataset"] as Json[]).length).toBe(4);
    const wrongType = await fetch(`${h.server.url}/api/mock-dsp/lmc/catalog/request`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRAWLER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ "@type": "ContractRequestMessage" }),
    });
    expect(wrongType.status).toBe(400);
    expect(
      (
        await fetch(`${h.server.url}/api/mock-dsp/lmc/catalog/request`, {
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
