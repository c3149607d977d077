import { describe, expect, it } from "vitest";
import { closedPortUrl } from "../support/upstream-double";
import { type JsonBody, ALPHA_DID, MGMT, call, dataspaceRulesHarness } from "./dataspace-rules.support";

/** participants, tasks and the client-credentials token */

const TM = "/tm/api/v1alpha1";

const h = dataspaceRulesHarness();
const { dataspace } = h;

describe("participants: display names, roles and slugs", () => {
  const contexts = [
    { "@id": "ctx-alpha-0001", identity: "did:web:identityhub%3A7083:Alpha-Klinik", state: "ACTIVATED" },
    { "@id": "ctx-beta", identity: "did:web:h.example:beta-hospital", state: "ACTIVATED" },
    {
      "@id": "ctx-pharm",
      participantId: "did:web:pharmaco.de:research",
      identity: "did:web:ignored:x",
      state: "ACTIVATED",
    },
    { "@id": "ctx-gamma", identity: "did:web:example.org:Gamma", state: "ACTIVATED" },
    { "@id": "0123456789abcdef-no-did", state: "ACTIVATED" },
    { "@id": "ctx-created", identity: "did:web:x:created", state: "CREATED" },
  ];
  const tenantManager = () =>
    h.double
      .on("GET", `${TM}/tenants`, {
        json: [
          { id: "t-alpha", properties: { displayName: "Alpha Klinik (tenant)" } },
          { id: "t-beta", properties: { displayName: "Beta Hospital" } },
        ],
      })
      .on("GET", `${TM}/tenants/t-alpha/participant-profiles`, {
        json: [{ id: "pp-1", identifier: "did:web:identityhub%3A7083:alpha-klinik" }],
      })
      .on("GET", `${TM}/tenants/t-beta/participant-profiles`, { json: [] });

  it("resolves in order: tenant manager, built-in table, slug, first 12 characters of the id", async () => {
    const ds = await dataspace();
    h.double.on("GET", MGMT, { json: contexts });
    tenantManager();
    const res = await call(ds, "GET /api/participants");
    expect(res.status).toBe(200);
    expect(
      res.body.map((p: JsonBody) => [p.participantId, p.displayName, p.role, p.slug, p.identity]),
    ).toEqual([
      [
        "ctx-alpha-0001",
        "Alpha Klinik (tenant)",
        "DATA_HOLDER",
        "alpha-klinik",
        "did:web:identityhub%3A7083:Alpha-Klinik",
      ],
      ["ctx-beta", "Beta Hospital", "", "beta-hospital", "did:web:h.example:beta-hospital"],
      ["ctx-pharm", "PharmaCo Research AG", "DATA_USER", "research", "did:web:pharmaco.de:research"],
      ["ctx-gamma", "gamma", "", "gamma", "did:web:example.org:Gamma"],
      ["0123456789abcdef-no-did", "0123456789ab", "", "", ""],
    ]);
    expect(res.body[0]).toMatchObject({ "@id": "ctx-alpha-0001", state: "ACTIVATED" }); // the context record passed through
  });

  it("tolerates the tenant manager being down: the built-in table and slugs still name participants", async () => {
    const down = await closedPortUrl();
    const ds = await dataspace({ TENANT_MANAGER_URL: down });
    h.double.on("GET", MGMT, { json: contexts });
    const res = await call(ds, "GET /api/participants");
    expect(res.status).toBe(200);
    expect(res.body.map((p: JsonBody) => p.displayName)).toEqual([
      "AlphaKlinik Berlin",
      "beta-hospital",
      "PharmaCo Research AG",
      "gamma",
      "0123456789ab",
    ]);
  });

  it("tolerates the tenant manager failing with 500", async () => {
    const ds = await dataspace();
    h.double.on("GET", MGMT, { json: contexts }).on("GET", `${TM}/tenants`, { status: 500 });
    const res = await call(ds, "GET /api/participants");
    expect(res.body[0].displayName).toBe("AlphaKlinik Berlin");
  });

  it("onboards through the first cell and the first dataspace profile", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", `${TM}/cells`, { json: [{ id: "cell-1", state: "ACTIVE" }, { id: "cell-2" }] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [{ id: "profile-1" }, { id: "profile-2" }] })
      .on("POST", `${TM}/tenants`, { json: { id: "tenant-9", version: 0, properties: {} }, status: 201 })
      .on("POST", `${TM}/tenants/tenant-9/participant-profiles`, {
        json: { id: "pp-9", identifier: "nordklinik" },
        status: 201,
      });
    const res = await call(ds, "POST /api/participants", {
      body: { displayName: "Nord Klinik", role: "DATA_HOLDER" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      tenantId: "tenant-9",
      participantId: "pp-9",
      displayName: "Nord Klinik",
      role: "DATA_HOLDER",
      status: "provisioning",
    });
    expect(h.double.received("POST", `${TM}/tenants`)[0].body).toEqual({
      properties: {
        displayName: "Nord Klinik",
        organization: "Nord Klinik",
        role: "DATA_HOLDER",
        ehdsParticipantType: "DATA_HOLDER",
      },
    });
    expect(h.double.received("POST", `${TM}/tenants/tenant-9/participant-profiles`)[0].body).toMatchObject({
      identifier: "nord-klinik",
      cellId: "cell-1",
      dataspaceProfileIds: ["profile-1"],
    });
  });

  it("answers 503 when there is no cell, or no dataspace profile, and creates nothing", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", `${TM}/cells`, { json: [] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [{ id: "p" }] });
    const noCell = await call(ds, "POST /api/participants", {
      body: { displayName: "X", role: "DATA_USER" },
    });
    expect(noCell.status).toBe(503);
    expect(noCell.body.error).toMatch(/cell/);
    h.double
      .on("GET", `${TM}/cells`, { json: [{ id: "c" }] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [] });
    const noProfile = await call(ds, "POST /api/participants", {
      body: { displayName: "X", role: "DATA_USER" },
    });
    expect(noProfile.status).toBe(503);
    expect(noProfile.body.error).toMatch(/dataspace profile/);
    expect(h.double.received("POST", `${TM}/tenants`)).toHaveLength(0);
  });
});

describe("tasks from the connector", () => {
  it("turns the negotiations and transfers of the caller's contexts into Task records", async () => {
    const ds = await dataspace({ DEMO_RECORDS: "off" });
    h.double
      .on("GET", MGMT, {
        json: [
          { "@id": "ctx-p", identity: "did:web:pharmaco.de:research", state: "ACTIVATED" },
          { "@id": "ctx-a", identity: ALPHA_DID, state: "ACTIVATED" },
        ],
      })
      .on("POST", `${MGMT}/ctx-p/contractnegotiations/request`, {
        json: [
          {
            "@id": "n-1",
            state: "AGREED",
            counterPartyId: ALPHA_DID,
            assetId: "fhir-cohort-bundle",
            stateTimestamp: 1750000000000,
          },
        ],
      })
      .on("POST", `${MGMT}/ctx-p/transferprocesses/request`, {
        json: [
          {
            "@id": "t-1",
            state: "STARTED",
            assetId: "fhir-cohort-bundle",
            transferType: "HttpData-PULL",
            stateTimestamp: 1750000100000,
          },
        ],
      })
      .on("POST", `${MGMT}/ctx-a/contractnegotiations/request`, {
        json: [
          {
            "@id": "n-2",
            state: "REQUESTED",
            type: "PROVIDER",
            counterPartyId: "did:web:pharmaco.de:research",
            assetId: "fhir-cohort-bundle",
            stateTimestamp: 1749000000000,
          },
        ],
      })
      .on("POST", `${MGMT}/ctx-a/transferprocesses/request`, { json: [] })
      // the asset lists the titles take the asset's name from
      .on("POST", `${MGMT}/ctx-p/assets/request`, { json: [] })
      .on("POST", `${MGMT}/ctx-a/assets/request`, {
        json: [{ "@id": "fhir-cohort-bundle", properties: { name: "FHIR R4 diabetes cohort bundle" } }],
      });
    const res = await call(ds, "GET /api/tasks", { as: "researcher" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: "t-1",
        // issue 40: names, not ids — the asset's name, the transfer type in words
        title: "Transfer of FHIR R4 diabetes cohort bundle (HTTP pull)",
        state: "STARTED",
        participantId: "ctx-p",
        kind: "transfer",
        updatedAt: new Date(1750000100000).toISOString(),
      },
      {
        id: "n-1",
        title: "Contract for FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin",
        state: "AGREED",
        participantId: "ctx-p",
        kind: "negotiation",
        updatedAt: new Date(1750000000000).toISOString(),
      },
    ]);
    const admin = await call(ds, "GET /api/tasks", { as: "admin" });
    expect(admin.body.map((t: JsonBody) => t.id).sort()).toEqual(["n-1", "n-2", "t-1"]);
    // the provider's side names the consumer; the participant list names the contexts
    expect(admin.body.find((t: JsonBody) => t.id === "n-2").title).toBe(
      "Offer of FHIR R4 diabetes cohort bundle to PharmaCo Research AG",
    );
  });
});

describe("client-credentials token", () => {
  const tokenEnv = () => ({
    CONNECTOR_TOKEN_URL: `${h.double.url}/token`,
    CONNECTOR_CLIENT_ID: "hub",
    CONNECTOR_CLIENT_SECRET: "s3cret",
  });

  it("obtains one token, caches it, and sends it on every management request", async () => {
    const ds = await dataspace(tokenEnv());
    h.double
      .on("POST", "/token", { json: { access_token: "tok-1", token_type: "Bearer", expires_in: 300 } })
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] })
      .on("POST", `${MGMT}/pharmaco/transferprocesses/request`, { json: [] });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    await call(ds, "GET /api/transfers", { query: { participantId: "pharmaco" } });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    const tokenCalls = h.double.received("POST", "/token");
    expect(tokenCalls).toHaveLength(1);
    expect(new URLSearchParams(tokenCalls[0].rawBody).get("grant_type")).toBe("client_credentials");
    expect(new URLSearchParams(tokenCalls[0].rawBody).get("client_id")).toBe("hub");
    const mgmt = h.double.requests.filter((r) => r.path.startsWith("/mgmt"));
    expect(mgmt).toHaveLength(3);
    for (const r of mgmt) expect(r.headers.authorization).toBe("Bearer tok-1");
  });

  it("renews the token shortly before it expires", async () => {
    const ds = await dataspace(tokenEnv());
    let n = 0;
    h.double
      .on("POST", "/token", { reply: () => ({ json: { access_token: `tok-${++n}`, expires_in: 1 } }) })
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    await new Promise((r) => setTimeout(r, 600));
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(
      h.double.requests.filter((r) => r.path.startsWith("/mgmt")).map((r) => r.headers.authorization),
    ).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });

  it("never sends an unauthenticated request when the token call fails", async () => {
    const ds = await dataspace(tokenEnv());
    h.double.on("POST", "/token", { status: 401, message: "invalid_client" });
    const list = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(list.status).toBe(200); // demonstration records
    expect(list.body.every((n: JsonBody) => n._demo)).toBe(true);
    const create = await call(ds, "POST /api/negotiations", {
      body: { participantId: "pharmaco", counterPartyAddress: "http://p", assetId: "a", offerId: "o" },
    });
    expect(create.status).toBe(502);
    expect(create.body).toEqual({
      error: "Failed to initiate contract negotiation",
      detail: "no access token: token endpoint answered HTTP 401",
    });
    expect(h.double.requests.filter((r) => r.path.startsWith("/mgmt"))).toHaveLength(0);
  });
});
