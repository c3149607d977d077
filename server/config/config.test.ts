import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./index";

describe("loadConfig", () => {
  it("gives DESIGN.md's defaults on an empty environment", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      publicUrl: "http://localhost:3000",
      dataDir: "./.data",
      appMode: "live",
      seedPatients: 200,
      upstreamTimeoutMs: 5000,
      oidcSessionCheck: { everyMs: 60_000, graceMs: 900_000 },
      pageConcurrency: 8,
      demoRecords: true,
      neo4j: undefined,
      oidc: undefined,
      connector: undefined,
      officeHolds: [],
    });
  });

  it("reads the provider session re-check in seconds, and refuses an interval under 5 s", () => {
    expect(
      loadConfig({ OIDC_SESSION_CHECK_SECONDS: "5", OIDC_SESSION_GRACE_SECONDS: "0" }).oidcSessionCheck,
    ).toEqual({ everyMs: 5000, graceMs: 0 });
    expect(() => loadConfig({ OIDC_SESSION_CHECK_SECONDS: "1" })).toThrow(/OIDC_SESSION_CHECK_SECONDS/);
    expect(() => loadConfig({ OIDC_SESSION_GRACE_SECONDS: "-1" })).toThrow(/OIDC_SESSION_GRACE_SECONDS/);
  });

  it("names every bad variable in one readable message", () => {
    try {
      loadConfig({
        PORT: "abc",
        APP_MODE: "offline",
        SEED_PATIENTS: "5",
        DEMO_RECORDS: "yes",
        OFFICE_HOLDS: "2026-13-45,tomorrow",
        PAGE_CONCURRENCY: "-1",
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const msg = (e as Error).message;
      for (const v of ["PORT", "APP_MODE", "SEED_PATIENTS", "DEMO_RECORDS", "PAGE_CONCURRENCY"])
        expect(msg).toContain(v);
    }
    expect(() => loadConfig({ OFFICE_HOLDS: "2026-12-24, tomorrow" })).toThrow(/OFFICE_HOLDS: "tomorrow"/);
  });

  it("requires secrets and a real provider in production, and credentials that go together", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET[\s\S]*OIDC_ISSUER/);
    expect(() => loadConfig({ NEO4J_URI: "bolt://localhost:7687" })).toThrow(/NEO4J_PASSWORD/);
    expect(() => loadConfig({ NEO4J_URI: "http://x" })).toThrow(/NEO4J_URI/);
    expect(() => loadConfig({ CONNECTOR_TOKEN_URL: "https://auth.example/token" })).toThrow(
      /CONNECTOR_CLIENT_ID/,
    );
  });

  it("requires a runtime-scoped connector's participant id (v4beta: one participant per runtime)", () => {
    const edc = { CONNECTOR_MANAGEMENT_URL: "http://127.0.0.1:9/management" };
    expect(() => loadConfig(edc)).toThrow(
      /CONNECTOR_PARTICIPANT_ID: required when CONNECTOR_API_VERSION is v4beta/,
    );
    expect(loadConfig({ ...edc, CONNECTOR_PARTICIPANT_ID: "did:web:a" }).connector?.participantId).toBe(
      "did:web:a",
    );
    // a participant-scoped connector names the context in each call's path
    expect(loadConfig({ ...edc, CONNECTOR_API_VERSION: "v5alpha" }).connector?.participantId).toBeUndefined();
  });

  it("requires the audit key from the environment in production, and at least 32 characters of it", () => {
    const production = {
      NODE_ENV: "production",
      SESSION_SECRET: "s".repeat(32),
      OIDC_ISSUER: "https://kc.example.eu/realms/ehds",
      OIDC_CLIENT_ID: "hub",
    };
    expect(() => loadConfig(production)).toThrow(/AUDIT_KEY: required when NODE_ENV=production/);
    expect(() => loadConfig({ ...production, AUDIT_KEY: "short" })).toThrow(/AUDIT_KEY: must be at least 32/);
    const c = loadConfig({
      ...production,
      AUDIT_KEY: "k".repeat(32),
      AUDIT_CHECKPOINTS: "/var/log/hub/cp.log",
    });
    expect(c.auditKey).toBe("k".repeat(32));
    expect(c.auditCheckpoints).toBe("/var/log/hub/cp.log");
    // development: a key file in DATA_DIR instead (server/audit/key.ts)
    expect(loadConfig({}).auditKey).toBeUndefined();
  });

  it("normalises URLs and parses the optional systems", () => {
    const c = loadConfig({
      PUBLIC_URL: "https://hub.example.eu/",
      OIDC_ISSUER: "https://kc.example.eu/realms/ehds/",
      OIDC_CLIENT_ID: "hub",
      OIDC_CLIENT_SECRET: "s",
      CONNECTOR_MANAGEMENT_URL: "https://cp.example.eu/api/mgmt/",
      CONNECTOR_PARTICIPANT_ID: "did:web:hub.example.eu",
      DEMO_RECORDS: "off",
      OFFICE_HOLDS: "2026-12-24, 2026-12-31",
    });
    expect(c.publicUrl).toBe("https://hub.example.eu");
    expect(c.oidc).toEqual({
      issuer: "https://kc.example.eu/realms/ehds",
      clientId: "hub",
      clientSecret: "s",
    });
    expect(c.connector?.managementUrl).toBe("https://cp.example.eu/api/mgmt");
    expect(c.demoRecords).toBe(false);
    expect(c.officeHolds).toEqual(["2026-12-24", "2026-12-31"]);
  });

  it("takes the issuer's and the identity hub's API keys with their URLs (decision 0114)", () => {
    const urls = {
      ISSUER_URL: "https://issuer.example/api/issuer",
      IDENTITY_HUB_URL: "https://ih.example/api/identity",
    };
    const keys = { ISSUER_API_KEY: "aXNzdWVy.c2VjcmV0", IDENTITY_HUB_API_KEY: "c3VwZXItdXNlcg==.cw+/=" };
    expect(loadConfig({ ...urls, ...keys })).toMatchObject({
      issuerUrl: urls.ISSUER_URL,
      issuerApiKey: keys.ISSUER_API_KEY,
      identityHubUrl: urls.IDENTITY_HUB_URL,
      identityHubApiKey: keys.IDENTITY_HUB_API_KEY,
    });
    // none: the embedded dataspace's services and keys
    expect(loadConfig({})).toMatchObject({ issuerApiKey: undefined, identityHubApiKey: undefined });
    // a key belongs to its URL
    expect(() => loadConfig(keys)).toThrow(
      new ConfigError([
        "ISSUER_API_KEY: set without ISSUER_URL (the key of the service that URL names; the embedded dataspace's needs none)",
        "IDENTITY_HUB_API_KEY: set without IDENTITY_HUB_URL (the key of the service that URL names; the embedded dataspace's needs none)",
      ]),
    );
    // a URL needs its key, unless the hub has a management token for it
    expect(() => loadConfig({ ...urls, ISSUER_API_KEY: keys.ISSUER_API_KEY })).toThrow(
      /^Invalid configuration:\n {2}- IDENTITY_HUB_API_KEY: required when IDENTITY_HUB_URL is set without a management token \(CONNECTOR_MANAGEMENT_URL with CONNECTOR_TOKEN_URL\): the identity API authenticates by x-api-key$/,
    );
    const token = {
      CONNECTOR_MANAGEMENT_URL: "https://cp.example/management",
      CONNECTOR_API_VERSION: "v5alpha",
      CONNECTOR_TOKEN_URL: "https://kc.example/token",
      CONNECTOR_CLIENT_ID: "hub",
      CONNECTOR_CLIENT_SECRET: "s",
    };
    expect(loadConfig({ ...urls, ...token })).toMatchObject({
      issuerApiKey: undefined,
      identityHubApiKey: undefined,
    });
    // a key is a header value: a pasted newline or a space is refused at boot
    expect(() => loadConfig({ ...urls, ...keys, ISSUER_API_KEY: "aXNzdWVy.c2VjcmV0\n" })).toThrow(
      "ISSUER_API_KEY: must be visible ASCII without spaces or line breaks (it is sent as x-api-key)",
    );
    expect(() => loadConfig({ ...urls, ...keys, IDENTITY_HUB_API_KEY: "a b" })).toThrow(
      /IDENTITY_HUB_API_KEY: must be/,
    );
  });

  it("turns the development wallet on only with the embedded identity provider", () => {
    const keycloak = { OIDC_ISSUER: "https://kc.example.eu/realms/ehds", OIDC_CLIENT_ID: "hub" };
    expect(loadConfig({}).eudi.devWallet).toBe(true);
    expect(loadConfig({ NODE_ENV: "test" }).eudi.devWallet).toBe(true);
    // a configured identity provider: anyone who knows a patient's name and birth date would sign in as them
    expect(loadConfig(keycloak).eudi.devWallet).toBe(false);
    expect(loadConfig({ ...keycloak, NODE_ENV: "test" }).eudi.devWallet).toBe(false);
    expect(loadConfig({ ...keycloak, EUDI_DEV_WALLET: "off" }).eudi.devWallet).toBe(false);
    expect(() => loadConfig({ ...keycloak, EUDI_DEV_WALLET: "on" })).toThrow(
      /EUDI_DEV_WALLET, OIDC_ISSUER: EUDI_DEV_WALLET must not be on when OIDC_ISSUER is set/,
    );
  });

  it("shows error details only when NODE_ENV=development is set explicitly", () => {
    expect(loadConfig({}).errorDetails).toBe(false);
    expect(loadConfig({ NODE_ENV: "" }).errorDetails).toBe(false);
    expect(loadConfig({ NODE_ENV: "test" }).errorDetails).toBe(false);
    expect(loadConfig({ NODE_ENV: "development" }).errorDetails).toBe(true);
  });

  it("takes a URL variable as the URL parser reads it, and names a bad one as Invalid URL", () => {
    // what the URL variables accept and how they are refused at boot (the zod check they use)
    expect(loadConfig({ PUBLIC_URL: " https://hub.example.eu/ " }).publicUrl).toBe("https://hub.example.eu");
    expect(loadConfig({ TENANT_MANAGER_URL: "http://localhost:8181/tm" }).tenantManagerUrl).toBe(
      "http://localhost:8181/tm",
    );
    expect(loadConfig({ NLQ_PROXY_URL: "http://10.0.0.5:8080" }).nlqProxyUrl).toBe("http://10.0.0.5:8080");
    for (const bad of ["not a url", "https://", "//hub.example.eu", "https://a b"]) {
      expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow(/^.*PUBLIC_URL: Invalid URL$/m);
      expect(() => loadConfig({ OIDC_ISSUER: bad, OIDC_CLIENT_ID: "hub" })).toThrow(
        /OIDC_ISSUER: Invalid URL/,
      );
    }
    expect(loadConfig({ EUDI_TRUSTED_ISSUERS: "https://pid.example.eu/" }).eudi.trustedIssuers).toEqual([
      "https://pid.example.eu",
    ]);
    for (const bad of ["http://pid.example.eu", "not a url"])
      expect(() => loadConfig({ EUDI_TRUSTED_ISSUERS: bad })).toThrow(
        `EUDI_TRUSTED_ISSUERS: "${bad}" is not an https URL`,
      );
  });

  it("takes PULL_PRIVATE_NETWORKS as private networks in CIDR notation (decision 0106), none by default", () => {
    expect(loadConfig({}).pullPrivateNetworks).toEqual([]);
    expect(
      loadConfig({ PULL_PRIVATE_NETWORKS: " 10.96.0.0/12, 172.18.0.0/16,,fd00::/8 " }).pullPrivateNetworks,
    ).toEqual(["10.96.0.0/12", "172.18.0.0/16", "fd00::/8"]);
    expect(() => loadConfig({ PULL_PRIVATE_NETWORKS: "10.0.0.0/8,169.254.0.0/16" })).toThrow(
      'PULL_PRIVATE_NETWORKS: "169.254.0.0/16" is not within a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7)',
    );
    expect(() => loadConfig({ PULL_PRIVATE_NETWORKS: "0.0.0.0/0" })).toThrow(
      /"0\.0\.0\.0\/0" is not within a private range/,
    );
    expect(() => loadConfig({ PULL_PRIVATE_NETWORKS: "cluster" })).toThrow(
      'PULL_PRIVATE_NETWORKS: "cluster" is not a network in CIDR notation such as 10.96.0.0/12',
    );
  });
});
