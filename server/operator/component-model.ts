import { readFileSync } from "node:fs";
import { z } from "zod";
import path from "node:path";
import type { AuditLog } from "../audit/log";
import type { OidcClient } from "../auth/oidc-client";
import type { Config } from "../config";
import type { Dataspace } from "../dataspace";
import type { GraphStore } from "../graph";
import type { Db } from "../storage/database";

/**
 * What the operator console knows of each component the hub depends on: the names, the answer
 * types, the dependency edges of the topology, the call each probe makes, and each component's
 * description (kind, version, address, whether it is embedded and restartable).
 */

const health = z.enum(["up", "down", "degraded"]);
export type Health = z.infer<typeof health>;

export const COMPONENT_NAMES = [
  "graph-store",
  "identity-provider",
  "connector",
  "tenant-manager",
  "issuer",
  "identity-hub",
  "language-backend",
] as const;
export type ComponentName = (typeof COMPONENT_NAMES)[number];

/** The spec's Component (name, kind, version, url, health) and what the console shows beside it. */
export const componentSchema = z.object({
  name: z.enum(COMPONENT_NAMES),
  kind: z.string(),
  version: z.string(),
  url: z.string(),
  health,
  label: z.string(),
  embedded: z.boolean().describe("served by the hub's process or its embedded local dataspace"),
  latencyMs: z.number().nullable(),
  checkedAt: z.string(),
  observed: z.string().describe("what the probe saw, in one line"),
  restartable: z.boolean(),
});
export type Component = z.infer<typeof componentSchema>;

const at = z.string();
const lastRestart = z.object({ at, by: z.string(), outcome: z.string() });
/** GET /api/admin/components/:name/diagnosis: the component probed now, its last error, restart and remedy */
export const diagnosisSchema = z.object({
  component: componentSchema,
  probe: z.object({
    call: z.string(),
    observed: z.string(),
    latencyMs: z.number().nullable(),
    at,
    thresholdMs: z.number().describe("slower than this counts as degraded"),
  }),
  lastError: z.object({ at, message: z.string() }).nullable(),
  lastRestart: lastRestart.nullable(),
  remedy: z.array(z.string()),
  dependsOn: z.array(z.string()),
  usedBy: z.array(z.string()),
});
export type Diagnosis = z.infer<typeof diagnosisSchema>;

export const topologySchema = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      kind: z.string(),
      health: z.union([health, z.literal("self")]),
      embedded: z.boolean(),
    }),
  ),
  edges: z.array(
    z.object({ id: z.string(), source: z.string(), target: z.string(), type: z.string(), label: z.string() }),
  ),
  meta: z.object({ checkedAt: z.string(), embeddedDataspace: z.boolean() }),
});
export type Topology = z.infer<typeof topologySchema>;

export const restartSchema = z.object({
  name: z.enum(COMPONENT_NAMES),
  restarted: z.literal(true),
  action: z.string(),
  alsoRestarted: z.array(z.enum(COMPONENT_NAMES)).describe("other components the same restart affected"),
  durationMs: z.number(),
  component: componentSchema,
});
export type RestartResult = z.infer<typeof restartSchema>;

/** Slower than this counts as degraded. */
export const SLOW_MS = 1500;

export interface ProbeOutcome {
  health: Health;
  observed: string;
  latencyMs: number | null;
  error?: string;
}

export interface ComponentState {
  last?: { outcome: ProbeOutcome; at: string };
  lastError?: { at: string; message: string };
  lastRestart?: z.infer<typeof lastRestart>;
}

export interface ComponentDeps {
  db: Db;
  audit: AuditLog;
  config: Config;
  graph: GraphStore;
  dataspace: Dataspace;
  /** the relying-party client in use at start-up */
  oidc: OidcClient;
  /** builds a fresh OpenID relying-party client (restart of the identity provider's client) */
  makeOidc: () => OidcClient;
  /** true when the hub runs the embedded development provider */
  embeddedIdp: boolean;
  /** restarts the embedded local dataspace (the container's part, server/start-dataspace.ts) */
  embeddedDataspace?: EmbeddedDataspaceRestart;
}

/** what the container hands the operator to restart the embedded dataspace with */
export interface EmbeddedDataspaceRestart {
  /** stops it and starts it again on the same address; the dataspace's clients are rebuilt */
  restart(): Promise<void>;
  /** stops the instance a restart started (the first one closes with the dataspace) */
  close(): Promise<void>;
}

/** The part of the service container a restart swaps a client in. */
export interface MutableContainer {
  oidc: OidcClient;
}

export const LABELS: Record<ComponentName, string> = {
  "graph-store": "Graph store",
  "identity-provider": "Identity provider",
  connector: "Connector (control plane)",
  "tenant-manager": "Tenant manager",
  issuer: "Credential issuer",
  "identity-hub": "Identity hub",
  "language-backend": "Language back end",
};

export const DEPENDS: [ComponentName | "hub", ComponentName, string, string][] = [
  ["hub", "graph-store", "READS_WRITES", "graph queries and writes"],
  ["hub", "identity-provider", "AUTHENTICATES_WITH", "OpenID Connect sign-in"],
  ["hub", "connector", "MANAGES", "management API"],
  ["hub", "tenant-manager", "ONBOARDS_THROUGH", "tenants and participant profiles"],
  ["hub", "issuer", "ADMINISTERS", "credential definitions, revocation"],
  ["hub", "identity-hub", "REQUESTS_CREDENTIALS", "DCP credential requests"],
  ["hub", "language-backend", "ASKS", "questions no template answers"],
  ["language-backend", "graph-store", "PROPOSES_QUERIES_FOR", "read-only queries run by the hub"],
  ["tenant-manager", "connector", "PROVISIONS", "participant contexts"],
  ["tenant-manager", "identity-hub", "PROVISIONS", "DIDs and keys"],
  ["connector", "identity-hub", "VERIFIES_WITH", "DCP presentations"],
  ["identity-hub", "issuer", "REQUESTS_ISSUANCE", "DCP issuance"],
];

export const PROBE_CALLS: Record<ComponentName, string> = {
  "graph-store": "a round-trip to the graph store (ping) and a node count of layer l1",
  "identity-provider": "GET {issuer}/.well-known/openid-configuration",
  connector: "GET {management}/{version}/participants (participant contexts)",
  "tenant-manager": "GET {tenant manager}/cells",
  issuer: "POST {issuer}/v1alpha/participants/{issuer}/credentialdefinitions/query",
  "identity-hub": "GET {identity hub}/v1alpha/participants/{first context}/credentials",
  "language-backend": "the language back end's probe (GET /api/nlq/backend)",
};

function packageVersion(name: string): string | undefined {
  try {
    const file = path.join(process.cwd(), "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** the SQLite library's version, asked once per database (a diagnosis describes its component per request) */
const sqliteVersions = new WeakMap<object, string>();
function sqliteVersionOf(db: ComponentDeps["db"]): string {
  let v = sqliteVersions.get(db);
  if (v === undefined) {
    v = (db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
    sqliteVersions.set(db, v);
  }
  return v;
}

/** a component as configured (besides its name and label); `oidcClient` is the relying-party client in use */
export function describeComponent(
  name: ComponentName,
  deps: ComponentDeps,
  oidcClient: OidcClient,
): Omit<Component, "name" | "label" | "health" | "latencyMs" | "checkedAt" | "observed"> {
  const { config, graph, dataspace } = deps;
  const rt = () => dataspace.runtime;
  const embedded = dataspace.mode === "embedded";
  /** a service of the dataspace beside the connector: restartable when it is configured */
  const service = (what: string, external: string, version: string, client?: { baseUrl: string }) => ({
    kind: embedded ? `${what} (embedded local dataspace)` : external,
    version,
    url: client?.baseUrl ?? "not configured",
    embedded,
    restartable: !!client,
  });
  switch (name) {
    case "graph-store": {
      const sqlite = graph.kind === "sqlite";
      if (graph.kind === "postgres") {
        // the address without its credentials
        const url = new URL(config.databaseUrl ?? "postgres://");
        url.username = url.password = "";
        return {
          kind: "graph store in PostgreSQL (shared by every instance on DATABASE_URL)",
          version: `PostgreSQL (pg ${packageVersion("pg") ?? "?"})`,
          url: url.toString(),
          embedded: false,
          restartable: false,
        };
      }
      const v = sqlite ? sqliteVersionOf(deps.db) : undefined;
      return {
        kind: sqlite ? "embedded graph store (SQLite)" : "graph database (Neo4j)",
        version: sqlite ? `SQLite ${v}` : `Neo4j (neo4j-driver ${packageVersion("neo4j-driver") ?? "?"})`,
        url: sqlite ? `file:${path.resolve(config.dataDir, "hub.sqlite")}` : (config.neo4j?.uri ?? ""),
        embedded: sqlite,
        restartable: false,
      };
    }
    case "identity-provider": {
      const issuer = oidcClient.issuer;
      const realm = /\/realms\/([^/]+)/.exec(issuer)?.[1];
      return {
        kind: deps.embeddedIdp
          ? "OpenID provider (embedded, development)"
          : realm
            ? "OpenID provider (Keycloak)"
            : "OpenID provider",
        version: deps.embeddedIdp
          ? `oidc-provider ${packageVersion("oidc-provider") ?? "?"}`
          : realm
            ? `Keycloak realm ${realm}`
            : "OpenID Connect Discovery 1.0",
        url: issuer,
        embedded: deps.embeddedIdp,
        restartable: true,
      };
    }
    case "connector":
      return {
        kind: embedded ? "connector management API (embedded local dataspace)" : "connector management API",
        version: `management API ${rt().connector.apiVersion}`,
        url: rt().connector.managementUrl,
        embedded,
        restartable: true,
      };
    case "tenant-manager":
      return service("tenant manager", "tenant manager", "tenant manager API v1alpha1", rt().tenantManager);
    case "issuer":
      return service(
        "credential issuer",
        "credential issuer service",
        `issuer admin API v1alpha${rt().issuerDid ? `, ${rt().issuerDid}` : ""}`,
        rt().issuer,
      );
    case "identity-hub":
      return service("identity hub", "identity hub", "identity API v1alpha (DCP v1.0)", rt().identityHub);
    case "language-backend":
      return {
        kind: config.nlqProxyUrl
          ? "language back end (proxy) behind built-in templates"
          : "built-in question templates",
        version: config.nlqProxyUrl ? "text-to-query proxy" : "templates",
        url: config.nlqProxyUrl ? new URL(config.nlqProxyUrl).origin : "built-in",
        embedded: !config.nlqProxyUrl,
        restartable: false,
      };
  }
}
