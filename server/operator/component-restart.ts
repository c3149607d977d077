import type { OidcClient } from "../auth/oidc-client";
import { createConnectorClient } from "../dataspace/connector-client";
import { graphDataSource } from "../dataspace/graph-data-source";
import { createIdentityHubClient } from "../dataspace/identity-hub-client";
import { createIssuerClient } from "../dataspace/issuer-client";
import { createClientCredentialsSource } from "../dataspace/oauth-token";
import { createTenantManagerClient } from "../dataspace/tenant-manager-client";
import type { TokenSource } from "../dataspace/upstream-http";
import { conflict } from "../http/errors";
import { startLocalDataspace, type LocalDataspace } from "../local-dataspace";
import type {
  Component,
  ComponentDeps,
  ComponentName,
  ComponentState,
  MutableContainer,
  ProbeOutcome,
  RestartResult,
} from "./component-model";

/**
 * Restarting a component: a fresh client (identity provider, external dataspace services), a
 * restart of the embedded local dataspace on the same address (its four services restart
 * together), or a refusal with the reason (graph store, language back end); each audited.
 */
export interface RestartContext {
  state: Map<ComponentName, ComponentState>;
  check: (name: ComponentName) => Promise<Component>;
  probe: (name: ComponentName) => Promise<ProbeOutcome>;
  named: (n: string) => ComponentName;
  /** swaps the relying-party client in use */
  setOidc: (client: OidcClient) => void;
}

export function createRestarts(deps: ComponentDeps, ctx: RestartContext) {
  const { config, graph, dataspace, audit } = deps;
  const { state, check, probe, named } = ctx;
  let restartedLocal: LocalDataspace | undefined;
  let restarting: Promise<unknown> | undefined;
  const local = () => dataspace.local;
  const rt = () => dataspace.runtime;

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
      audit.appendSync({
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
          container.oidc = deps.makeOidc();
          ctx.setOidc(container.oidc);
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
      audit.appendSync({
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
    audit.appendSync({
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
    restart,
    async close() {
      await restartedLocal?.close();
    },
  };
}
