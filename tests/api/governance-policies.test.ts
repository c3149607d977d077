import { describe, expect, it } from "vitest";
import { type Json, body, governanceHarness } from "./governance.support";
import { NOT_YOUR_CONTEXT } from "../../server/dataspace/acting";

/**
 * Issue 4, black box: credentials, ODRL policies and scope, audit and retention, the operator
 * console, the trust center, the identity provider's address, the discovery check and the
 * demonstration DSP catalogue, against the real server with its embedded dataspace.
 *
 * This file: ODRL policies and the trust center.
 */

const h = governanceHarness();
const { api, send } = h;

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
      // the access body writes policies in its own context (medreg) only
      const res = await send("regulator", "POST", "/api/admin/policies", { participantId: "medreg", policy });
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

  it("refuses a policy that offers in another organisation's name, on the policy or a rule, and pushes nothing", async () => {
    const before = (await (await api("admin", "/api/admin/policies?participantId=medreg")).json()) as Json[];
    const forged = [
      offer("forged-1"), // LMC's DID, written in the access body's own context
      {
        "@id": "forged-2",
        policy: {
          "@type": "Offer",
          permission: [{ action: "use", assigner: { "@id": "did:web:alpha-klinik.de:participant" } }],
        },
      },
      {
        "@id": "forged-4",
        policy: {
          "@type": "Set",
          permission: [{ action: "use", "odrl:assigner": "did:web:alpha-klinik.de:participant" }],
        },
      },
    ];
    for (const policy of forged) {
      const res = await send("regulator", "POST", "/api/admin/policies", { participantId: "medreg", policy });
      expect(res.status, JSON.stringify(policy)).toBe(400);
      expect((await body(res)).error).toMatch(
        /^must be did:web:\S+, the DID of participant medreg: a policy offers only in its own participant's name$/,
      );
    }
    // nor may the operator, who writes in any context, offer there in another's name
    const asAdmin = await send("admin", "POST", "/api/admin/policies", {
      participantId: "medreg",
      policy: offer("forged-3"),
    });
    expect(asAdmin.status).toBe(400);
    const after = (await (await api("admin", "/api/admin/policies?participantId=medreg")).json()) as Json[];
    expect(after.map((p) => p["@id"])).toEqual(before.map((p) => p["@id"]));
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
    const atConnector = await h.server.services.dataspace.runtime.connector.listPolicyDefinitions("lmc");
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
    // the access body reads LMC's policies but does not write in LMC's name (issue 34), before any other check
    const notTheirs = await send("regulator", "PUT", "/api/admin/policies", {
      policyId: "offer-test-research",
      participantId: "lmc",
      policy: offer("offer-test-research"),
    });
    expect(notTheirs.status).toBe(403);
    expect((await body(notTheirs)).error).toBe(NOT_YOUR_CONTEXT);
    const notTheirsDelete = await send(
      "regulator",
      "DELETE",
      "/api/admin/policies?policyId=offer-test-research",
    );
    expect(notTheirsDelete.status).toBe(404); // only its own context is searched: LMC's policy is not there
    const replaced = await send("admin", "PUT", "/api/admin/policies", {
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
    expect(r).toMatchObject({ version: 2, updatedBy: "admin" });
    // the connector (here the embedded one) took the PUT: the registry and the connector agree
    expect(r.connector).toMatchObject({ state: "in-sync" });
    const held = (await h.server.services.dataspace.runtime.connector.listPolicyDefinitions("lmc")).find(
      (d) => d["@id"] === "offer-test-research",
    );
    expect(held?.policy).toMatchObject({
      "@type": "Set",
      obligation: [{ action: "anonymize" }, expect.anything()],
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

  it("answers the list kept per version: the same bytes as a list built now, and a registry write at once", async () => {
    const policies = h.server.services.policies;
    const text = async (p: string) => (await api("admin", p)).text();
    const same = async () => {
      expect(await text("/api/admin/policies")).toBe(JSON.stringify(await policies.list()));
      expect(await text("/api/admin/policies?participantId=lmc")).toBe(
        JSON.stringify(await policies.list("lmc")),
      );
    };
    await same();
    const created = await send("admin", "POST", "/api/admin/policies", {
      participantId: "lmc",
      policy: offer("offer-kept-list"),
    });
    expect(created.status).toBe(201);
    expect(await text("/api/admin/policies?participantId=lmc")).toContain('"offer-kept-list"');
    await same();
    // a change goes to the connector too: the list shows the new version in sync
    const replaced = await send("admin", "PUT", "/api/admin/policies", {
      policyId: "offer-kept-list",
      participantId: "lmc",
      policy: offer("offer-kept-list", { obligation: [{ action: "delete" }] }),
    });
    expect(replaced.status).toBe(200);
    const listed = JSON.parse(await text("/api/admin/policies")) as Json[];
    expect(listed.find((p) => p["@id"] === "offer-kept-list")).toMatchObject({
      version: 2,
      connector: { state: "in-sync" },
    });
    await same();
    expect(
      (await api("admin", "/api/admin/policies?policyId=offer-kept-list", { method: "DELETE" })).status,
    ).toBe(204);
    expect(await text("/api/admin/policies")).not.toContain('"offer-kept-list"');
    await same();
    const unknown = await api("admin", "/api/admin/policies?participantId=no-such-context");
    expect(unknown.status).toBe(404);
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

  it("answers every permitted role the same kept view, with the time of each read, and no other role", async () => {
    // the view does not depend on the caller: the operator's and the admin's answers differ only in generatedAt
    const texts: string[] = [];
    for (const user of ["trustcenter", "admin", "trustcenter"]) {
      const res = await api(user, "/api/trust-center");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      texts.push(await res.text());
    }
    const rest = texts.map((t) => t.replace(/^\{"generatedAt":"[^"]+",/, ""));
    expect(rest[0]!.length).toBeLessThan(texts[0]!.length);
    expect(new Set(rest).size).toBe(1);
    // kept answers are never handed to a role the route does not admit
    for (const user of ["researcher", "clinic", "regulator", "patient1"])
      expect((await api(user, "/api/trust-center")).status).toBe(403);
  });
});
