import type { OidcClient } from "../auth/oidc-client";
import { reconnectClients, serviceEndpoints } from "../dataspace";
import { conflict } from "../http/errors";
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
 * together; the container hands in how, server/start-dataspace.ts), or a refusal with the reason
 * (graph store, language back end); each audited.
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
  let restarting: Promise<unknown> | undefined;
  const rt = () => dataspace.runtime;

  async function restart(n: string, container: MutableContainer, by: string): Promise<RestartResult> {
    const name = named(n);
    const t0 = performance.now();
    const s = state.get(name)!;
    const audited = (outcome: string) =>
      audit.append({ action: "component.restart", actor: by, target: name, outcome, kind: "operator" });
    const refuse = async (reason: string) => {
      s.lastRestart = { at: new Date().toISOString(), by, outcome: `refused: ${reason}` };
      await audited(`refused: ${reason}`);
      return conflict(`Cannot restart ${name}: ${reason}`);
    };
    if (restarting)
      throw conflict(`Cannot restart ${name}: another restart is in progress; try again in a moment`);
    let action: string;
    let also: ComponentName[] = [];
    const run = async () => {
      switch (name) {
        case "graph-store":
          throw await refuse(
            graph.kind === "sqlite"
              ? "the embedded graph store shares the hub's SQLite connection with the audit log and the sessions, so it cannot be reopened on its own; restart the hub"
              : graph.kind === "postgres"
                ? "the graph store in PostgreSQL shares the relational store's connection pool, which reconnects by itself; restart the hub"
                : "the Neo4j driver keeps its own connection pool and reconnects by itself; a new driver needs a restart of the hub",
          );
        case "language-backend":
          throw await refuse(
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
            throw await refuse("no tenant manager is configured (TENANT_MANAGER_URL)");
          if (name === "issuer" && !rt().issuer) throw await refuse("no issuer is configured (ISSUER_URL)");
          if (name === "identity-hub" && !rt().identityHub)
            throw await refuse("no identity hub is configured (IDENTITY_HUB_URL)");
          if (dataspace.mode === "embedded") {
            if (!deps.embeddedDataspace) throw new Error("no embedded dataspace");
            await deps.embeddedDataspace.restart();
            also = (["connector", "tenant-manager", "issuer", "identity-hub"] as const).filter(
              (x) => x !== name,
            );
            action =
              "embedded local dataspace restarted on the same address (connector, tenant manager, issuer and identity hub are one service); clients rebuilt";
            return;
          }
          // a configured connector (the embedded dataspace restarted above): its services as configured
          const endpoints = serviceEndpoints(config);
          if (!endpoints) throw new Error("no connector configured");
          reconnectClients(rt(), [name], endpoints);
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
      await audited(`failed: ${message}`);
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
    await audited(`${action!}; health ${component.health}`);
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
      await deps.embeddedDataspace?.close();
    },
  };
}
