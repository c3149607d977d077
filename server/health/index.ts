import type { GraphStore } from "../graph/store";
import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { OidcClient } from "../auth/oidc-client";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface HealthServices {
  graph: GraphStore;
  oidc: Pick<OidcClient, "probe">;
}

export interface Health {
  status: "ok" | "degraded" | "down";
  graphdb: boolean;
  idp: boolean;
  timestamp: string;
}

export const HEALTH_PROBE_TIMEOUT_MS = 1500;

/** Real probes, run in parallel with a short time-out: the graph store round-trip and the provider's discovery. */
export async function checkHealth(
  graph: GraphStore,
  idpProbe: (timeoutMs: number) => Promise<boolean>,
): Promise<Health> {
  const [graphdb, idp] = await Promise.all([
    graph.ping(HEALTH_PROBE_TIMEOUT_MS),
    idpProbe(HEALTH_PROBE_TIMEOUT_MS),
  ]);
  return {
    status: graphdb && idp ? "ok" : graphdb ? "degraded" : "down",
    graphdb,
    idp,
    timestamp: new Date().toISOString(),
  };
}

export const healthHandlers: HandlerMap<HealthServices> = {
  "GET /api/health": async ({ services }) => {
    const health = await checkHealth(services.graph, services.oidc.probe);
    return json(health, health.status === "down" ? 503 : 200);
  },
};
