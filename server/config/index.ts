import { z } from "zod";
import { privateNetworkProblem } from "./networks";

/**
 * whether EDC runtimes of one participant, without participant-scoped paths, serve `apiVersion`: only
 * `v4beta` (EDC 0.15; its `v3` is too, but the hub's tests and policy service address `v3` participant-scoped).
 */
export const isRuntimeScoped = (apiVersion: string) => apiVersion === "v4beta";

/**
 * Every environment variable of DESIGN.md, validated once at start-up.
 * `loadConfig` throws a ConfigError naming each bad variable; nothing else reads process.env.
 */

const bool = z.enum(["on", "off"]);
const optionalUrl = z.url().optional();
/** `<requests>/<window>`, the window in s, m or h: e.g. `120/1m` */
const rateLimit = z
  .string()
  .regex(/^[1-9]\d{0,6}\/[1-9]\d{0,5}[smh]$/, "must look like 120/1m (requests per window in s, m or h)")
  .transform((v) => {
    const [points, window] = v.split("/");
    const unit = { s: 1, m: 60, h: 3600 }[window.slice(-1) as "s" | "m" | "h"];
    return { points: Number(points), seconds: Number(window.slice(0, -1)) * unit };
  });
/** an API key sent as an HTTP header (`x-api-key`): visible ASCII, no spaces (a copied key's newline is refused) */
const headerKey = z
  .string()
  .regex(/^[\x21-\x7e]+$/, "must be visible ASCII without spaces or line breaks (it is sent as x-api-key)")
  .optional();
const emptyToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
/** a comma-separated list: each entry `clean`ed, empty ones dropped */
const list = (clean: (entry: string) => string) =>
  z
    .string()
    .default("")
    .transform((v) => v.split(",").map(clean).filter(Boolean));

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.string().min(1).default("./.data"),
  SESSION_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  AUDIT_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  AUDIT_CHECKPOINTS: z.string().min(1).optional(),
  APP_MODE: z.enum(["live", "static"]).default("live"),
  NEO4J_URI: z
    .string()
    .regex(/^(neo4j|bolt)(\+s|\+ssc)?:\/\//, "must be a neo4j:// or bolt:// URI")
    .optional(),
  NEO4J_USER: z.string().default("neo4j"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: z.string().optional(),
  // test hook only (tests/api/graph-audit-kill.test.ts): a pause between a Neo4j commit and its audit entry
  HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS: z.coerce.number().int().min(1).max(600_000).optional(),
  SEED_PATIENTS: z.coerce.number().int().min(10).max(100_000).default(200),
  OIDC_ISSUER: optionalUrl,
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  CONNECTOR_MANAGEMENT_URL: optionalUrl,
  CONNECTOR_API_VERSION: z
    .string()
    .regex(/^v[0-9a-z]+$/, "must look like v4beta or v3")
    .default("v4beta"),
  CONNECTOR_API_KEY: z.string().min(1).optional(),
  CONNECTOR_PARTICIPANT_ID: z.string().min(1).optional(),
  CONNECTOR_TOKEN_URL: optionalUrl,
  CONNECTOR_CLIENT_ID: z.string().optional(),
  CONNECTOR_CLIENT_SECRET: z.string().optional(),
  TENANT_MANAGER_URL: optionalUrl,
  ISSUER_URL: optionalUrl,
  ISSUER_API_KEY: headerKey,
  ISSUER_DID: z
    .string()
    .regex(/^did:[a-z0-9]+:\S+$/, "not a DID (did:<method>:<id>)")
    .optional(),
  ISSUER_CONTEXT_ID: z.string().min(1).optional(),
  IDENTITY_HUB_URL: optionalUrl,
  IDENTITY_HUB_API_KEY: headerKey,
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  OIDC_SESSION_CHECK_SECONDS: z.coerce.number().int().min(5).max(86_400).default(60),
  OIDC_SESSION_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(900),
  PAGE_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(8),
  DEMO_RECORDS: bool.default("on"),
  NLQ_PROXY_URL: optionalUrl,
  OFFICE_HOURS: z.string().optional(),
  OFFICE_HOLDS: list((s) => s.trim()),
  PULL_PRIVATE_NETWORKS: list((s) => s.trim()),
  CRAWLER_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  EUDI_VERIFIER_URL: optionalUrl,
  EUDI_TRUSTED_ISSUERS: list((s) => s.trim().replace(/\/+$/, "")),
  EUDI_DEV_WALLET: bool.optional(),
  RATE_LIMIT_SIGNIN: rateLimit.prefault("120/1m"),
  RATE_LIMIT_CALLBACK: rateLimit.prefault("120/1m"),
  RATE_LIMIT_PASSWORD: rateLimit.prefault("120/1m"),
  RATE_LIMIT_PASSWORD_USER: rateLimit.prefault("10/15m"),
  RATE_LIMIT_WALLET: rateLimit.prefault("60/1m"),
  RATE_LIMIT_CHALLENGE: rateLimit.prefault("120/1m"),
  RATE_LIMIT_APP_ACCOUNT: rateLimit.prefault("60/10m"),
  RATE_LIMIT_PAIRING: rateLimit.prefault("100/10m"),
  FEDERATED_K: z.coerce
    .number()
    .int()
    .min(5, "must be at least 5 (k-anonymity is never weaker than k = 5)")
    .max(1000)
    .default(5),
});

/**
 * The issuer's and the identity hub's API keys (decision 0114): a key belongs to its URL; a service named
 * by URL needs its key unless the hub has a management token to send it (CONNECTOR_MANAGEMENT_URL with
 * CONNECTOR_TOKEN_URL), as IdentityHub and the IssuerService 0.15.1 take nothing else.
 */
function keyRules(e: z.infer<typeof envSchema>): string[] {
  const token = !!(e.CONNECTOR_MANAGEMENT_URL && e.CONNECTOR_TOKEN_URL);
  const services = [
    { name: "ISSUER", url: e.ISSUER_URL, key: e.ISSUER_API_KEY, api: "the issuer service's admin API" },
    { name: "IDENTITY_HUB", url: e.IDENTITY_HUB_URL, key: e.IDENTITY_HUB_API_KEY, api: "the identity API" },
  ];
  return services.flatMap(({ name, url, key, api }) => {
    if (key && !url)
      return `${name}_API_KEY: set without ${name}_URL (the key of the service that URL names; the embedded dataspace's needs none)`;
    if (url && !key && !token)
      return `${name}_API_KEY: required when ${name}_URL is set without a management token (CONNECTOR_MANAGEMENT_URL with CONNECTOR_TOKEN_URL): ${api} authenticates by x-api-key`;
    return [];
  });
}

/** the configuration the server runs with: what `loadConfig` makes of the environment */
export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(source: Record<string, string | undefined> = process.env) {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(envSchema.shape)) raw[key] = emptyToUndefined(source[key]);
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join(".") || "(environment)"}: ${i.message}`),
    );
  }
  const e = parsed.data;
  const production = e.NODE_ENV === "production";
  const devWallet = e.EUDI_DEV_WALLET === "on";
  // every rule the variables break, in this order (a rule that holds gives false or "")
  const problems = [
    production && !e.SESSION_SECRET && "SESSION_SECRET: required when NODE_ENV=production",
    production &&
      !e.OIDC_ISSUER &&
      "OIDC_ISSUER: required when NODE_ENV=production (the embedded identity provider is for development only)",
    production &&
      !e.AUDIT_KEY &&
      "AUDIT_KEY: required when NODE_ENV=production (the audit chain's key is kept outside the database; instances sharing DATABASE_URL must share it)",
    e.OIDC_ISSUER && !e.OIDC_CLIENT_ID && "OIDC_CLIENT_ID: required when OIDC_ISSUER is set",
    e.NEO4J_URI && !e.NEO4J_PASSWORD && "NEO4J_PASSWORD: required when NEO4J_URI is set",
    e.CONNECTOR_MANAGEMENT_URL &&
      isRuntimeScoped(e.CONNECTOR_API_VERSION) &&
      !e.CONNECTOR_PARTICIPANT_ID &&
      "CONNECTOR_PARTICIPANT_ID: required when CONNECTOR_API_VERSION is v4beta (the connector runtime's edc.participant.id: a runtime-scoped connector is one participant)",
    e.CONNECTOR_TOKEN_URL &&
      (!e.CONNECTOR_CLIENT_ID || !e.CONNECTOR_CLIENT_SECRET) &&
      "CONNECTOR_CLIENT_ID, CONNECTOR_CLIENT_SECRET: required when CONNECTOR_TOKEN_URL is set",
    ...keyRules(e),
    ...(["ISSUER_DID", "ISSUER_CONTEXT_ID"] as const)
      .filter((k) => e[k] && !e.ISSUER_URL)
      .map(
        (k) =>
          `${k}: set without ISSUER_URL (the issuer service that URL names; the embedded issuer's is known)`,
      ),
    ...e.OFFICE_HOLDS.filter(
      (h) => !/^\d{4}-\d{2}-\d{2}$/.test(h) || Number.isNaN(Date.parse(`${h}T00:00:00Z`)),
    ).map((h) => `OFFICE_HOLDS: "${h}" is not a date of the form YYYY-MM-DD`),
    ...e.EUDI_TRUSTED_ISSUERS.filter((t) => !z.url().safeParse(t).success || !/^https:\/\//.test(t)).map(
      (t) => `EUDI_TRUSTED_ISSUERS: "${t}" is not an https URL`,
    ),
    ...e.PULL_PRIVATE_NETWORKS.map(privateNetworkProblem)
      .filter(Boolean)
      .map((p) => `PULL_PRIVATE_NETWORKS: ${p}`),
    production &&
      devWallet &&
      "EUDI_DEV_WALLET: must not be on when NODE_ENV=production (its PID issuer is for development only)",
    e.OIDC_ISSUER &&
      devWallet &&
      "EUDI_DEV_WALLET, OIDC_ISSUER: EUDI_DEV_WALLET must not be on when OIDC_ISSUER is set (its PID issuer lets anyone sign in as any patient; it is for the embedded identity provider only)",
  ].filter((p): p is string => typeof p === "string" && p !== "");
  if (problems.length) throw new ConfigError(problems);

  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    env: e.NODE_ENV,
    /**
     * Stack traces and server paths in error answers (Remix's development mode): only when
     * NODE_ENV=development is set explicitly, never under the default NODE_ENV.
     */
    errorDetails: emptyToUndefined(source.NODE_ENV) === "development",
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    dataDir: e.DATA_DIR,
    /** PostgreSQL shared by several instances (server/storage/relational); undefined: the SQLite file in DATA_DIR */
    databaseUrl: e.DATABASE_URL,
    /** undefined: generate once and keep in DATA_DIR (see server/storage/secrets.ts) */
    sessionSecret: e.SESSION_SECRET,
    /**
     * The audit chain's key (HMAC), never kept in the database; undefined: made once and kept in
     * DATA_DIR/audit.key, mode 0600 (server/audit/key.ts). Required in production: instances sharing
     * DATABASE_URL must share it.
     */
    auditKey: e.AUDIT_KEY,
    /** where the audit chain's signed checkpoints are appended; undefined: DATA_DIR/audit-checkpoints.log */
    auditCheckpoints: e.AUDIT_CHECKPOINTS,
    appMode: e.APP_MODE,
    neo4j: e.NEO4J_URI
      ? {
          uri: e.NEO4J_URI,
          user: e.NEO4J_USER,
          password: e.NEO4J_PASSWORD ?? "",
          database: e.NEO4J_DATABASE,
          /** test hook (HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS): see server/graph/neo4j-store.ts */
          pauseAfterCommitMs: e.HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS,
        }
      : undefined,
    seedPatients: e.SEED_PATIENTS,
    oidc: e.OIDC_ISSUER
      ? {
          issuer: e.OIDC_ISSUER.replace(/\/+$/, ""),
          clientId: e.OIDC_CLIENT_ID ?? "",
          clientSecret: e.OIDC_CLIENT_SECRET ?? "",
        }
      : undefined,
    connector: e.CONNECTOR_MANAGEMENT_URL
      ? {
          managementUrl: e.CONNECTOR_MANAGEMENT_URL.replace(/\/+$/, ""),
          apiVersion: e.CONNECTOR_API_VERSION,
          tokenUrl: e.CONNECTOR_TOKEN_URL,
          clientId: e.CONNECTOR_CLIENT_ID,
          clientSecret: e.CONNECTOR_CLIENT_SECRET,
          /** the management API key (EDC's `tokenbased` auth, header x-api-key) */
          apiKey: e.CONNECTOR_API_KEY,
          /** a runtime-scoped connector's one participant (its `edc.participant.id`) */
          participantId: e.CONNECTOR_PARTICIPANT_ID,
        }
      : undefined,
    tenantManagerUrl: e.TENANT_MANAGER_URL,
    issuerUrl: e.ISSUER_URL,
    /** the issuer admin API's key (`x-api-key`, decision 0114); undefined: the management token */
    issuerApiKey: e.ISSUER_API_KEY,
    /** the configured issuer's DID (what holders ask by DCP, what its credentials are checked against) and its participant context */
    issuerDid: e.ISSUER_DID,
    issuerContextId: e.ISSUER_CONTEXT_ID ?? "issuer",
    identityHubUrl: e.IDENTITY_HUB_URL,
    /** the identity API's key (`x-api-key`, an admin's: the hub reads every participant's credentials) */
    identityHubApiKey: e.IDENTITY_HUB_API_KEY,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    /**
     * How often a session signed in at an external provider is confirmed there (refresh-token grant),
     * and how long it keeps working while the provider cannot be asked (server/auth/sessions.ts)
     */
    oidcSessionCheck: {
      everyMs: e.OIDC_SESSION_CHECK_SECONDS * 1000,
      graceMs: e.OIDC_SESSION_GRACE_SECONDS * 1000,
    },
    /** pages (and their .data requests) answered at once, the others wait their turn; 0: no limit (server/http/turns.ts, shared fairly between callers) */
    pageConcurrency: e.PAGE_CONCURRENCY,
    demoRecords: e.DEMO_RECORDS === "on",
    nlqProxyUrl: e.NLQ_PROXY_URL,
    officeHours: e.OFFICE_HOURS,
    officeHolds: e.OFFICE_HOLDS,
    crawlerToken: e.CRAWLER_TOKEN,
    /**
     * Private networks (CIDR) a pull may connect to when the data plane's host is a name, e.g. the
     * cluster's service network; none: a name must resolve to public addresses (decision 0106)
     */
    pullPrivateNetworks: e.PULL_PRIVATE_NETWORKS,
    /** EU Digital Identity Wallet sign-in (server/eudi) */
    eudi: {
      /** an OpenID4VP verifier endpoint (EUDI reference verifier API); undefined: the embedded verifier */
      verifierUrl: e.EUDI_VERIFIER_URL?.replace(/\/+$/, ""),
      /** PID issuers whose keys are trusted (SD-JWT VC issuer metadata at /.well-known/jwt-vc-issuer) */
      trustedIssuers: e.EUDI_TRUSTED_ISSUERS,
      /**
       * the development wallet page and its development PID issuer: only with the embedded identity
       * provider (never with OIDC_ISSUER), never in production
       */
      devWallet:
        (e.EUDI_DEV_WALLET ?? (e.NODE_ENV === "production" || e.OIDC_ISSUER ? "off" : "on")) === "on",
    },
    /** k of the k-anonymity applied to cohort counts (server/federated): at least 5 */
    federatedK: e.FEDERATED_K,
    /** requests per window and client (the password form's wrong passwords also per username): server/http/rate-limits.ts */
    rateLimits: {
      signin: e.RATE_LIMIT_SIGNIN,
      callback: e.RATE_LIMIT_CALLBACK,
      password: e.RATE_LIMIT_PASSWORD,
      passwordUser: e.RATE_LIMIT_PASSWORD_USER,
      wallet: e.RATE_LIMIT_WALLET,
      challenge: e.RATE_LIMIT_CHALLENGE,
      appAccount: e.RATE_LIMIT_APP_ACCOUNT,
      pairing: e.RATE_LIMIT_PAIRING,
    },
  };
}
