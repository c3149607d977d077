import { z } from "zod";
import type { GraphStore } from "../graph";
import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { OidcClient } from "../auth/oidc-client";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface HealthServices {
  health: HealthMonitor<Health>;
}
import { createHealthMonitor, type HealthMonitor } from "./monitor";

/** the background monitor, for other capabilities that answer from their own background probes */
export { createHealthMonitor, type HealthMonitor } from "./monitor";

/** GET /api/health's answer (200, or 503 when `down`) */
export const healthSchema = z.object({
  status: z.enum(["ok", "degraded", "down"]),
  graphdb: z.boolean().describe("the graph store answered its round-trip"),
  idp: z.boolean().describe("the identity provider answered its discovery document"),
  timestamp: z.string().describe("when the probe ran"),
});
export type Health = z.infer<typeof healthSchema>;

const HEALTH_PROBE_TIMEOUT_MS = 1500;
/** how often the background probes run while /api/health is being asked */
export const HEALTH_PROBE_INTERVAL_MS = 1000;

/** The background monitor of one server: built by the container (services.ts), stopped on close. */
export function createHealthCheck(graph: GraphStore, oidc: Pick<OidcClient, "probe">): HealthMonitor<Health> {
  return createHealthMonitor({
    // real probes, run in parallel with a short time-out: the graph store round-trip and the provider's discovery
    probe: async () => {
      const [graphdb, idp] = await Promise.all([
        graph.ping(HEALTH_PROBE_TIMEOUT_MS),
        oidc.probe(HEALTH_PROBE_TIMEOUT_MS),
      ]);
      return {
        // Neo4j away leaves the hub up (graph calls answer 503, the rest serves): degraded, not down
        status: graphdb && idp ? "ok" : graphdb || graph.kind === "neo4j" ? "degraded" : "down",
        graphdb,
        idp,
        timestamp: new Date().toISOString(),
      };
    },
    failed: () => ({ status: "down", graphdb: false, idp: false, timestamp: new Date().toISOString() }),
    intervalMs: HEALTH_PROBE_INTERVAL_MS,
  });
}

/**
 * The health answer as bytes, for the Node listener to write before any other work (server/app.ts):
 * the body is encoded once per probe result; null when no fresh result exists (the dispatcher's
 * route then waits for one probe). Same status and body as the route below.
 */
export function createEncodedHealth(monitor: HealthMonitor<Health>) {
  let encodedFor: Health | undefined;
  let body = Buffer.alloc(0);
  return () => {
    const reading = monitor.peek();
    if (!reading) return null;
    if (reading.health !== encodedFor) {
      encodedFor = reading.health;
      body = Buffer.from(JSON.stringify(reading.health));
    }
    return { status: statusOf(reading.health), body, ageMs: reading.ageMs };
  };
}

const statusOf = (health: Health) => (health.status === "down" ? 503 : 200);

/**
 * GET /api/health answers the last background probe result: `timestamp` is when that probe ran,
 * and the `Age` (seconds, RFC 9111) and `X-Health-Age-Ms` headers say how old it is.
 */
export const healthHandlers: HandlerMap<HealthServices> = {
  "GET /api/health": async ({ services }) => {
    const { health, ageMs } = await services.health.read();
    return json(health, statusOf(health), {
      Age: String(Math.floor(ageMs / 1000)),
      "X-Health-Age-Ms": String(Math.round(ageMs)),
    });
  },
};
