import { readFileSync } from "node:fs";
import path from "node:path";
import type { AuditLog } from "../audit/log";
import type { OidcClient } from "../auth/oidc-client";
import type { Config } from "../config";
import type { Dataspace } from "../dataspace";
import { createConnectorClient } from "../dataspace/connector-client";
import { graphDataSource } from "../dataspace/graph-data-source";
import { createIdentityHubClient } from "../dataspace/identity-hub-client";
import { createIssuerClient } from "../dataspace/issuer-client";
import { createClientCredentialsSource } from "../dataspace/oauth-token";
import { createTenantManagerClient } from "../dataspace/tenant-manager-client";
import { isUpstreamError, type TokenSource } from "../dataspace/upstream-http";
import type { GraphStore } from "../graph/store";
import { conflict, notFound } from "../http/errors";
import { startLocalDataspace, type LocalDataspace } from "../local-dataspace";
import { displayUrl, probeProxy } from "../nlq/proxy";
import { TEMPLATES } from "../nlq/templates";
import type { Db } from "../storage/database";

/**
 * The components the hub depends on, probed for real: each probe makes the cheapest call that
 * proves the component answers what the hub needs (a graph round-trip, the provider's discovery
 * document, a list call on each management API, the language back end's probe). The last probe,
 * the last error and the last restart of each are kept for the diagnosis; a restart re-creates
 * the component's client, or restarts the embedded service it runs in, and is refused with a
 * reason where neither is possible.
 */

export type Health = "up" | "down" | "degraded";

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
export interface Component {
  name: ComponentName;
  kind: string;
  version: string;
  url: string;
  health: Health;
  label: string;
  /** served by the hub's process or its embedded local dataspace */
  embedded: boolean;
  latencyMs: number | null;
  checkedAt: string;
  /** what the probe saw, in one line */
  observed: string;
  restartable: boolean;
}

export interface Diagnosis {
  component: Component;
  probe: { call: string; observed: string; latencyMs: number | null; at: string; thresholdMs: number };
  lastError: { at: string; message: string } | null;
  lastRestart: { at: string; by: string; outcome: string } | null;
  remedy: string[];
  dependsOn: string[];
  usedBy: string[];
}

export interface Topology {
  nodes: { id: string; label: string; kind: string; health: Health | "self"; embedded: boolean }[];
  edges: { id: string; source: string; target: string; type: string; label: string }[];
  meta: { checkedAt: string; embeddedDataspace: boolean };
}

export interface RestartResult {
  name: ComponentName;
  restarted: true;
  action: string;
  /** other components the same restart affected */
  alsoRestarted: ComponentName[];
  durationMs: number;
  component: Component;
}

/** Slower than this counts as degraded. */
export const SLOW_MS = 1500;

interface ProbeOutcome {
  health: Health;
  observed: string;
  latencyMs: number | null;
  error?: string;
}

interface State {
  last?: { outcome: ProbeOutcome; at: string };
  lastError?: { at: string; message: string };
  lastRestart?: { at: string; by: string; outcome: string };
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
}

/** The part of the service container a restart swaps a client in. */
export interface MutableContainer {
  oidc: OidcClient;
}

const LABELS: Record<ComponentName, string> = {
  "graph-store": "Graph store",
  "identity-provider": "Identity provider",
  connector: "Connector (control plane)",
  "tenant-manager": "Tenant manager",
  issuer: "Credential issuer",
  "identity-hub": "Identity hub",
  "language-backend": "Language back end",
};

const DEPENDS: [ComponentName | "hub", ComponentName, string, string][] = [
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

function packageVersion(name: string): string | undefined {
  try {
    const file = path.join(process.cwd(), "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function remedies(name: ComponentName, outcome: ProbeOutcome | undefined, deps: ComponentDeps): string[] {
  const { config, dataspace } = deps;
  const embedded = dataspace.mode === "embedded";
  const e = outcome?.error ?? "";
  const out: string[] = [];
  if (!outcome || outcome.health === "up") return ["Nothing to do: the last probe succeeded."];
  if (outcome.health === "degraded" && outcome.latencyMs !== null && outcome.latencyMs > SLOW_MS) {
    out.push(
      `The probe took ${outcome.latencyMs} ms (more than ${SLOW_MS} ms): check the load and network path to the component.`,
    );
  }
  const timeout = /time-?out|did not answer/i.test(e);
  const unreachable = /unreachable|ECONNREFUSED|fetch failed|ENOTFOUND|connect/i.test(e);
  const token = /token/i.test(e);
  switch (name) {
    case "graph-store":
      out.push(
        config.neo4j
          ? `Check that Neo4j answers at ${config.neo4j.uri} and that NEO4J_USER / NEO4J_PASSWORD are right; the driver reconnects by itself once it does.`
          : `The embedded store is the SQLite file in DATA_DIR (${config.dataDir}): check free disk space and file permissions, then restart the hub.`,
      );
      break;
    case "identity-provider":
      out.push(
        deps.embeddedIdp
          ? "The embedded provider runs in the hub under /idp: if its discovery document fails, restart the hub; check PUBLIC_URL matches the address users reach."
          : `Check that ${config.oidc?.issuer}/.well-known/openid-configuration answers from the hub's host (OIDC_ISSUER), then restart this component to fetch discovery and keys again.`,
      );
      break;
    case "language-backend":
      out.push(
        config.nlqProxyUrl
          ? `Check the service at NLQ_PROXY_URL; meanwhile the built-in templates keep answering the questions they match.`
          : "No language back end is configured: the built-in templates answer. Set NLQ_PROXY_URL for questions no template matches.",
      );
      break;
    default: {
      const variable = {
        connector: "CONNECTOR_MANAGEMENT_URL",
        "tenant-manager": "TENANT_MANAGER_URL",
        issuer: "ISSUER_URL",
        "identity-hub": "IDENTITY_HUB_URL",
      }[name];
      if (embedded)
        out.push(
          "This service is part of the embedded local dataspace: restart it here (the four embedded services restart together).",
        );
      else {
        if (unreachable)
          out.push(`Nothing answers at the configured address: check ${variable} and that the service runs.`);
        if (timeout)
          out.push(
            `The service did not answer within UPSTREAM_TIMEOUT_MS (${config.upstreamTimeoutMs} ms): check its load, or raise the time-out.`,
          );
        if (token)
          out.push(
            "The access token could not be obtained: check CONNECTOR_TOKEN_URL, CONNECTOR_CLIENT_ID and CONNECTOR_CLIENT_SECRET.",
          );
        if (/HTTP 401|HTTP 403/.test(e))
          out.push("The service refused the hub's credentials: check the client registered for the hub.");
        if (/HTTP 404/.test(e))
          out.push(
            `The address answers but not with this API: check the path and version in ${variable}${name === "connector" ? " and CONNECTOR_API_VERSION" : ""}.`,
          );
        out.push("After fixing the cause, restart this component so the hub builds a fresh client.");
      }
    }
  }
  return out;
}

export function createComponents(deps: ComponentDeps) {
  const { config, graph, dataspace, audit } = deps;
  const state = new Map<ComponentName, State>(COMPONENT_NAMES.map((n) => [n, {}]));
  const probeTimeout = Math.min(config.upstreamTimeoutMs, 3000);
  let restartedLocal: LocalDataspace | undefined;
  let restarting: Promise<unknown> | undefined;
  /** the relying-party client in use (a restart replaces it here and in the container) */
  let oidcClient = deps.oidc;

  const local = () => dataspace.local;
  const rt = () => dataspace.runtime;

  async function timed(fn: (signal: AbortSignal) => Promise<string>): Promise<ProbeOutcome> {
    const t0 = performance.now();
    try {
      const observed = await fn(AbortSignal.timeout(probeTimeout));
      const latencyMs = Math.round(performance.now() - t0);
      return { health: latencyMs > SLOW_MS ? "degraded" : "up", observed, latencyMs };
    } catch (e) {
      const latencyMs = Math.round(performance.now() - t0);
      const message = isUpstreamError(e)
        ? e.message
        : e instanceof Error
          ? e.name === "TimeoutError"
            ? `no answer within ${probeTimeout} ms`
            : e.message
          : String(e);
      return { health: "down", observed: message, latencyMs, error: message };
    }
  }

  function describe(name: ComponentName): Omit<Component, "health" | "latencyMs" | "checkedAt" | "observed"> {
    const embedded = dataspace.mode === "embedded";
    switch (name) {
      case "graph-store": {
        const sqlite = graph.kind === "sqlite";
        const v = sqlite
          ? (deps.db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v
          : undefined;
        return {
          name,
          label: LABELS[name],
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
          name,
          label: LABELS[name],
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
          name,
          label: LABELS[name],
          kind: embedded ? "connector management API (embedded local dataspace)" : "connector management API",
          version: `management API ${rt().connector.apiVersion}`,
          url: rt().connector.managementUrl,
          embedded,
          restartable: true,
        };
      case "tenant-manager":
        return {
          name,
          label: LABELS[name],
          kind: embedded ? "tenant manager (embedded local dataspace)" : "tenant manager",
          version: "tenant manager API v1alpha1",
          url: rt().tenantManager?.baseUrl ?? "not configured",
          embedded,
          restartable: !!rt().tenantManager,
        };
      case "issuer":
        return {
          name,
          label: LABELS[name],
          kind: embedded ? "credential issuer (embedded local dataspace)" : "credential issuer service",
          version: `issuer admin API v1alpha${rt().issuerDid ? `, ${rt().issuerDid}` : ""}`,
          url: rt().issuer?.baseUrl ?? "not configured",
          embedded,
          restartable: !!rt().issuer,
        };
      case "identity-hub":
        return {
          name,
          label: LABELS[name],
          kind: embedded ? "identity hub (embedded local dataspace)" : "identity hub",
          version: "identity API v1alpha (DCP v1.0)",
          url: rt().identityHub?.baseUrl ?? "not configured",
          embedded,
          restartable: !!rt().identityHub,
        };
      case "language-backend":
        return {
          name,
          label: LABELS[name],
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

  const PROBE_CALLS: Record<ComponentName, string> = {
    "graph-store": "a round-trip to the graph store (ping) and a node count of layer l1",
    "identity-provider": "GET {issuer}/.well-known/openid-configuration",
    connector: "GET {management}/{version}/participants (participant contexts)",
    "tenant-manager": "GET {tenant manager}/cells",
    issuer: "POST {issuer}/v1alpha/participants/{issuer}/credentialdefinitions/query",
    "identity-hub": "GET {identity hub}/v1alpha/participants/{first context}/credentials",
    "language-backend": "the language back end's probe (GET /api/nlq/backend)",
  };

  async function probe(name: ComponentName): Promise<ProbeOutcome> {
    const oidc = oidcClient;
    switch (name) {
      case "graph-store":
        return timed(async () => {
          if (!(await graph.ping(probeTimeout))) throw new Error("the graph store did not answer the ping");
          const n = await graph.countNodes(["l1"]);
          return `ping answered; ${n} marketplace (l1) nodes`;
        });
      case "identity-provider":
        return timed(async () => {
          if (!(await oidc.probe(probeTimeout)))
            throw new Error(`discovery at ${oidc.issuer} did not answer 200`);
          return "discovery document answered 200";
        });
      case "connector":
        return timed(async (signal) => {
          const contexts = await rt().connector.listParticipantContexts(signal);
          return `${contexts.length} participant contexts (${contexts.filter((c) => c.state === "ACTIVATED").length} ACTIVATED)`;
        });
      case "tenant-manager": {
        const tm = rt().tenantManager;
        if (!tm)
          return {
            health: "down",
            observed: "not configured (TENANT_MANAGER_URL)",
            latencyMs: null,
            error: "not configured",
          };
        return timed(async (signal) => `${(await tm.listCells(signal)).length} cells`);
      }
      case "issuer": {
        const issuer = rt().issuer;
        if (!issuer)
          return {
            health: "down",
            observed: "not configured (ISSUER_URL)",
            latencyMs: null,
            error: "not configured",
          };
        return timed(
          async (signal) =>
            `${(await issuer.listCredentialDefinitions(signal)).length} credential definitions`,
        );
      }
      case "identity-hub": {
        const hub = rt().identityHub;
        if (!hub)
          return {
            health: "down",
            observed: "not configured (IDENTITY_HUB_URL)",
            latencyMs: null,
            error: "not configured",
          };
        return timed(async (signal) => {
          const contexts = await rt()
            .connector.listParticipantContexts(signal)
            .catch(() => []);
          const first = contexts.find((c) => c.state === "ACTIVATED");
          if (!first) {
            const res = await fetch(hub.baseUrl, { signal });
            if (res.status >= 500) throw new Error(`HTTP ${res.status} at ${hub.baseUrl}`);
            return `reachable (HTTP ${res.status}); no participant context to list credentials of`;
          }
          return `${(await hub.listCredentials(first["@id"], signal)).length} credentials held by ${first["@id"]}`;
        });
      }
      case "language-backend": {
        const url = config.nlqProxyUrl;
        if (!url) return timed(async () => `${TEMPLATES.length} built-in templates (no proxy configured)`);
        const p = await probeProxy(url, probeTimeout);
        // the templates answer whatever the proxy does: an unreachable proxy degrades, never downs, questions
        return p.reachable
          ? {
              health: p.latencyMs > SLOW_MS ? "degraded" : "up",
              observed: `proxy ${displayUrl(url)} answered (HTTP ${p.status}); ${TEMPLATES.length} templates answer first`,
              latencyMs: p.latencyMs,
            }
          : {
              health: "degraded",
              observed: `proxy ${displayUrl(url)} unreachable (${p.error ?? `HTTP ${p.status}`}); ${TEMPLATES.length} templates still answer`,
              latencyMs: p.latencyMs,
              error: `proxy unreachable: ${p.error ?? `HTTP ${p.status}`}`,
            };
      }
    }
  }

  async function check(name: ComponentName): Promise<Component> {
    const outcome = await probe(name);
    const at = new Date().toISOString();
    const s = state.get(name)!;
    s.last = { outcome, at };
    if (outcome.error) s.lastError = { at, message: outcome.error };
    return {
      ...describe(name),
      health: outcome.health,
      latencyMs: outcome.latencyMs,
      checkedAt: at,
      observed: outcome.observed,
    };
  }

  const isName = (n: string): n is ComponentName => (COMPONENT_NAMES as readonly string[]).includes(n);
  function named(n: string): ComponentName {
    if (!isName(n)) throw notFound(`No component ${n}: the components are ${COMPONENT_NAMES.join(", ")}`);
    return n;
  }

  function tokenSource(
    tokenUrl: string | undefined,
    clientId: string | undefined,
    clientSecret: string | undefined,
  ): TokenSource | undefined {
    return tokenUrl && clientId
      ? createClientCredentialsSource({
          tokenUrl,
          clientId,
          clientSecret: clientSecret ?? "",
          timeoutMs: config.upstreamTimeoutMs,
        })
      : undefined;
  }

  /** rebuilds the dataspace clients against the given endpoints */
  function rebuildClients(
    which: ComponentName[],
    endpoints: {
      managementUrl: string;
      apiVersion: string;
      tenantManagerUrl?: string;
      issuerUrl?: string;
      identityHubUrl?: string;
      tokens?: TokenSource;
    },
  ) {
    const r = rt();
    const common = { timeoutMs: config.upstreamTimeoutMs, tokens: endpoints.tokens };
    if (which.includes("connector"))
      r.connector = createConnectorClient({
        ...common,
        managementUrl: endpoints.managementUrl,
        apiVersion: endpoints.apiVersion,
      });
    if (which.includes("tenant-manager") && endpoints.tenantManagerUrl)
      r.tenantManager = createTenantManagerClient({ ...common, baseUrl: endpoints.tenantManagerUrl });
    if (which.includes("issuer") && endpoints.issuerUrl && r.issuer) {
      r.issuer = createIssuerClient({
        ...common,
        baseUrl: endpoints.issuerUrl,
        issuerContextId: r.issuer.issuerContextId,
      });
    }
    if (which.includes("identity-hub") && endpoints.identityHubUrl)
      r.identityHub = createIdentityHubClient({ ...common, baseUrl: endpoints.identityHubUrl });
  }

  async function restartEmbeddedDataspace(): Promise<void> {
    const l = local();
    if (!l) throw new Error("no embedded dataspace");
    const port = Number(new URL(l.url).port);
    const host = new URL(l.url).hostname;
    if (restartedLocal) await restartedLocal.close();
    else await dataspace.close(); // closes the dataspace's own embedded instance (idempotent)
    const next = await startLocalDataspace({
      dataDir: config.dataDir,
      host,
      port,
      dataSource: graphDataSource(graph),
      graphBridgeUrl: `${config.publicUrl}/internal/graph-bridge`,
    });
    restartedLocal = next;
    rebuildClients(["connector", "tenant-manager", "issuer", "identity-hub"], {
      managementUrl: next.managementUrl,
      apiVersion: next.apiVersion,
      tenantManagerUrl: next.tenantManagerUrl,
      issuerUrl: next.issuerUrl,
      identityHubUrl: next.identityHubUrl,
      tokens: tokenSource(next.tokenUrl, next.clientId, next.clientSecret),
    });
  }

  async function restart(n: string, container: MutableContainer, by: string): Promise<RestartResult> {
    const name = named(n);
    const t0 = performance.now();
    const s = state.get(name)!;
    const refuse = (reason: string) => {
      s.lastRestart = { at: new Date().toISOString(), by, outcome: `refused: ${reason}` };
      audit.append({
        action: "component.restart",
        actor: by,
        target: name,
        outcome: `refused: ${reason}`,
        kind: "operator",
      });
      return conflict(`Cannot restart ${name}: ${reason}`);
    };
    if (restarting)
      throw conflict(`Cannot restart ${name}: another restart is in progress; try again in a moment`);
    let action: string;
    let also: ComponentName[] = [];
    const run = async () => {
      switch (name) {
        case "graph-store":
          throw refuse(
            graph.kind === "sqlite"
              ? "the embedded graph store shares the hub's SQLite connection with the audit log and the sessions, so it cannot be reopened on its own; restart the hub"
              : "the Neo4j driver keeps its own connection pool and reconnects by itself; a new driver needs a restart of the hub",
          );
        case "language-backend":
          throw refuse(
            config.nlqProxyUrl
              ? "the language back end is an external service the hub does not run, and the hub keeps no connection to it (each question is a new request); restart it where it runs"
              : "the language back end is the hub's built-in question templates, which have no state to restart",
          );
        case "identity-provider":
          oidcClient = deps.makeOidc();
          container.oidc = oidcClient;
          action = deps.embeddedIdp
            ? "relying-party client re-initialised (discovery and signing keys are fetched again); the embedded provider itself runs in the hub's process and restarts with the hub"
            : "relying-party client re-initialised: discovery and signing keys are fetched again on the next sign-in";
          return;
        default: {
          if (name === "tenant-manager" && !rt().tenantManager)
            throw refuse("no tenant manager is configured (TENANT_MANAGER_URL)");
          if (name === "issuer" && !rt().issuer) throw refuse("no issuer is configured (ISSUER_URL)");
          if (name === "identity-hub" && !rt().identityHub)
            throw refuse("no identity hub is configured (IDENTITY_HUB_URL)");
          if (dataspace.mode === "embedded") {
            await restartEmbeddedDataspace();
            also = (["connector", "tenant-manager", "issuer", "identity-hub"] as const).filter(
              (x) => x !== name,
            );
            action =
              "embedded local dataspace restarted on the same address (connector, tenant manager, issuer and identity hub are one service); clients rebuilt";
            return;
          }
          const c = config.connector;
          rebuildClients([name], {
            managementUrl: rt().connector.managementUrl,
            apiVersion: rt().connector.apiVersion,
            tenantManagerUrl: config.tenantManagerUrl,
            issuerUrl: config.issuerUrl,
            identityHubUrl: config.identityHubUrl,
            tokens: tokenSource(c?.tokenUrl, c?.clientId, c?.clientSecret),
          });
          action = "client re-initialised: new connections and a fresh access token on the next call";
        }
      }
    };
    const p = run();
    restarting = p;
    try {
      await p;
    } catch (e) {
      if (e && typeof e === "object" && (e as { status?: number }).status === 409) throw e;
      const message = e instanceof Error ? e.message : String(e);
      s.lastError = { at: new Date().toISOString(), message: `restart failed: ${message}` };
      s.lastRestart = { at: new Date().toISOString(), by, outcome: `failed: ${message}` };
      audit.append({
        action: "component.restart",
        actor: by,
        target: name,
        outcome: `failed: ${message}`,
        kind: "operator",
      });
      throw e;
    } finally {
      restarting = undefined;
    }
    // connections pooled to a restarted service fail once when they are next used: a first round of
    // probes clears them, so the answer (and the next user request) sees the service as it is now
    let component = await check(name);
    if (component.health === "down") {
      await new Promise((r) => setTimeout(r, 150));
      await Promise.all(also.map((a) => probe(a)));
      component = await check(name);
    }
    const at = new Date().toISOString();
    s.lastRestart = { at, by, outcome: `${action!} (now ${component.health})` };
    for (const a of also) state.get(a)!.lastRestart = { at, by, outcome: `restarted with ${name}` };
    audit.append({
      action: "component.restart",
      actor: by,
      target: name,
      outcome: `${action!}; health ${component.health}`,
      kind: "operator",
    });
    return {
      name,
      restarted: true,
      action: action!,
      alsoRestarted: also,
      durationMs: Math.round(performance.now() - t0),
      component,
    };
  }

  return {
    names: COMPONENT_NAMES,
    async list(): Promise<Component[]> {
      return Promise.all(COMPONENT_NAMES.map((n) => check(n)));
    },
    async topology(): Promise<Topology> {
      const list = await Promise.all(COMPONENT_NAMES.map((n) => check(n)));
      return {
        nodes: [
          { id: "hub", label: "Health Dataspace Hub", kind: "this server", health: "self", embedded: true },
          ...list.map((c) => ({
            id: c.name,
            label: c.label,
            kind: c.kind,
            health: c.health,
            embedded: c.embedded,
          })),
        ],
        edges: DEPENDS.map(([source, target, type, label]) => ({
          id: `${source}->${target}`,
          source,
          target,
          type,
          label,
        })),
        meta: { checkedAt: new Date().toISOString(), embeddedDataspace: dataspace.mode === "embedded" },
      };
    },
    async diagnosis(n: string): Promise<Diagnosis> {
      const name = named(n);
      const component = await check(name);
      const s = state.get(name)!;
      const outcome = s.last!.outcome;
      return {
        component,
        probe: {
          call: PROBE_CALLS[name],
          observed: outcome.observed,
          latencyMs: outcome.latencyMs,
          at: s.last!.at,
          thresholdMs: SLOW_MS,
        },
        lastError: s.lastError ?? null,
        lastRestart: s.lastRestart ?? null,
        remedy: remedies(name, outcome, deps),
        dependsOn: DEPENDS.filter(([src]) => src === name).map(([, t]) => t),
        usedBy: DEPENDS.filter(([, t]) => t === name).map(([src]) => src),
      };
    },
    restart,
    async close() {
      await restartedLocal?.close();
    },
  };
}

export type Components = ReturnType<typeof createComponents>;
