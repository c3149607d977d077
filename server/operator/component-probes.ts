import type { OidcClient } from "../auth/oidc-client";
import { isUpstreamError } from "../dataspace/upstream-http";
import { failureText } from "../http/errors";
import { displayUrl, probeProxy, TEMPLATES } from "../nlq";
import { SLOW_MS, type ComponentDeps, type ComponentName, type ProbeOutcome } from "./component-model";

/**
 * The probes, for real: each makes the cheapest call that proves the component answers what the
 * hub needs (see PROBE_CALLS), timed, with a time-out of at most 3 s; slower than SLOW_MS is degraded.
 */
export function createProbes(deps: ComponentDeps, oidcClient: () => OidcClient) {
  const { config, graph, dataspace } = deps;
  const probeTimeout = Math.min(config.upstreamTimeoutMs, 3000);
  const rt = () => dataspace.runtime;

  /** a probe that calls an upstream with the probe's time-out signal */
  const timed = (fn: (signal: AbortSignal) => Promise<string>) =>
    measured(() => fn(AbortSignal.timeout(probeTimeout)));

  /** the outcome of a service no variable names */
  const notConfigured = (variable: string): ProbeOutcome => ({
    health: "down",
    observed: `not configured (${variable})`,
    latencyMs: null,
    error: "not configured",
  });

  /**
   * A probe timed. Called directly, it arms no signal: it asks something in this process, or passes the
   * time-out on itself (a diagnosis probes on every request, and a timer per request outlives it by the
   * whole time-out)
   */
  async function measured(probe: () => Promise<string>): Promise<ProbeOutcome> {
    const t0 = performance.now();
    try {
      const observed = await probe();
      const latencyMs = Math.round(performance.now() - t0);
      return { health: latencyMs > SLOW_MS ? "degraded" : "up", observed, latencyMs };
    } catch (e) {
      const latencyMs = Math.round(performance.now() - t0);
      const message = isUpstreamError(e) ? e.message : failureText(e, `no answer within ${probeTimeout} ms`);
      return { health: "down", observed: message, latencyMs, error: message };
    }
  }

  async function probe(name: ComponentName): Promise<ProbeOutcome> {
    const oidc = oidcClient();
    switch (name) {
      case "graph-store":
        return measured(async () => {
          if (!(await graph.ping(probeTimeout))) throw new Error("the graph store did not answer the ping");
          const n = await graph.countNodes(["l1"]);
          return `ping answered; ${n} marketplace (l1) nodes`;
        });
      case "identity-provider":
        return measured(async () => {
          if (!(await oidc.probe(probeTimeout)))
            throw new Error(`discovery at ${oidc.issuer} did not answer 200`);
          return "discovery document answered 200";
        });
      case "connector":
        return timed(async (signal) => {
          const contexts = await rt().connector.listParticipantContexts(signal);
          return `${contexts.length} participant contexts (${contexts.filter((c) => c.state === "ACTIVATED").length} activated)`;
        });
      case "tenant-manager": {
        const tm = rt().tenantManager;
        if (!tm) return notConfigured("TENANT_MANAGER_URL");
        return timed(async (signal) => `${(await tm.listCells(signal)).length} cells`);
      }
      case "issuer": {
        const issuer = rt().issuer;
        if (!issuer) return notConfigured("ISSUER_URL");
        return timed(
          async (signal) =>
            `${(await issuer.listCredentialDefinitions(signal)).length} credential definitions`,
        );
      }
      case "identity-hub": {
        const hub = rt().identityHub;
        if (!hub) return notConfigured("IDENTITY_HUB_URL");
        return timed(async (signal) => {
          const contexts = await rt()
            .connector.listParticipantContexts(signal)
            .catch(() => []);
          const first = contexts.find((c) => c.state === "ACTIVATED");
          if (!first) {
            const res = await fetch(hub.baseUrl, { signal });
            await res.body?.cancel().catch(() => undefined); // its status is the reading, its body not read
            if (res.status >= 500) throw new Error(`HTTP ${res.status} at ${hub.baseUrl}`);
            return `reachable (HTTP ${res.status}); no participant context to list credentials of`;
          }
          return `${(await hub.listCredentials(first["@id"], signal)).length} credentials held by ${first["@id"]}`;
        });
      }
      case "language-backend": {
        const url = config.nlqProxyUrl;
        if (!url) return measured(async () => `${TEMPLATES.length} built-in templates (no proxy configured)`);
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

  return { probe };
}
