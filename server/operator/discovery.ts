import { z } from "zod";
import type { Config } from "../config";
import type { GraphStore } from "../graph";
import { createHealthMonitor } from "../health";
import { failureText } from "../http/errors";
import { deepFrozen } from "../http/kept";
import type { Directory, DirectoryEntry } from "./directory";
import { READING_IDLE_STOP_MS, READING_INTERVAL_MS, type Reading } from "./readings";
import type { MockDsp } from "./mock-dsp";
import { cappedJson } from "../http/limits";

/**
 * GET /api/debug/phase26: the read-only check of federated discovery. For each entry of the
 * crawler's directory, its catalogue is read: the hub's own demonstration catalogues in-process
 * (from the graph), any other address over HTTP (a DSP CatalogRequestMessage).
 *
 * The route answers the last background check (readings.ts), only for the inputs it read: a change
 * of the directory (change feed, seen by every instance) or of the graph (its version) since it began
 * makes the next read wait for a new one. Remote catalogues are read again on each background run.
 */

const int = z.number().int();
const discoveryTarget = z.object({
  id: z.string(),
  did: z.string(),
  displayName: z.string(),
  catalogueUrl: z.string().nullable(),
  kind: z
    .enum(["hub", "remote", "none"])
    .describe("hub: the hub's own demonstration catalogue (read in-process); remote: probed over HTTP"),
  reachable: z.boolean().nullable(),
  datasets: int,
  offers: int,
  error: z.string().nullable(),
  latencyMs: z.number().nullable(),
});
export type DiscoveryTarget = z.infer<typeof discoveryTarget>;
type Reach = Pick<DiscoveryTarget, "reachable" | "datasets" | "offers" | "error" | "latencyMs">;
/** a catalogue not read: no datasets, no offers */
const unread = (reachable: boolean | null, error: string | null, latencyMs: number | null): Reach => ({
  reachable,
  datasets: 0,
  offers: 0,
  error,
  latencyMs,
});

/** GET /api/debug/phase26's answer */
export const discoveryCheckSchema = z.object({
  checkedAt: z.string(),
  readOnly: z.literal(true),
  crawler: z.object({ tokenConfigured: z.boolean(), catalogueRequestPath: z.string() }),
  targets: z.array(discoveryTarget),
  participants: z.object({ total: int, withCatalogue: int, withoutCatalogue: z.array(z.string()) }),
  federatedDatasets: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      participant: z.string(),
      participantDid: z.string(),
      offers: int,
      catalogueDatasetId: z.string().nullable(),
    }),
  ),
  totals: z.object({ datasets: int, offers: int, reachableTargets: int, unreachableTargets: int }),
  problems: z.array(z.string()),
  ok: z.boolean(),
});
export type DiscoveryCheck = z.infer<typeof discoveryCheckSchema>;

export function createDiscovery(deps: {
  config: Config;
  graph: Pick<GraphStore, "version">;
  directory: Directory;
  mockDsp: MockDsp;
}) {
  const { config, graph, directory, mockDsp } = deps;
  const ownPrefix = `${config.publicUrl}/api/mock-dsp/`;

  async function probeRemote(url: string): Promise<Reach> {
    const t0 = performance.now();
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/ld+json, application/json" },
        body: JSON.stringify({
          "@context": ["https://w3id.org/dspace/2025/1/context.jsonld"],
          "@type": "CatalogRequestMessage",
        }),
        signal: AbortSignal.timeout(Math.min(config.upstreamTimeoutMs, 3000)),
        redirect: "error",
      });
      const latencyMs = Math.round(performance.now() - t0);
      if (!res.ok) return unread(false, `HTTP ${res.status}`, latencyMs);
      const body = (await cappedJson(res)) as Record<string, unknown>;
      const list = (body["dcat:dataset"] ?? body.dataset ?? []) as Record<string, unknown>[];
      const datasets = Array.isArray(list) ? list : [];
      const offers = datasets.reduce((s, d) => {
        const policies = d["odrl:hasPolicy"] ?? d.hasPolicy;
        return s + (Array.isArray(policies) ? policies.length : 0);
      }, 0);
      return { reachable: true, datasets: datasets.length, offers, error: null, latencyMs };
    } catch (e) {
      const error = failureText(e, "no answer within the time-out");
      return unread(false, error, Math.round(performance.now() - t0));
    }
  }

  async function runCheck(): Promise<DiscoveryCheck> {
    const entries = await directory.list();
    const problems: string[] = [];
    const federated: DiscoveryCheck["federatedDatasets"] = [];
    const targets = await Promise.all(
      entries.map(async (e: DirectoryEntry): Promise<DiscoveryTarget> => {
        const base = { id: e.id, did: e.did, displayName: e.displayName, catalogueUrl: e.catalogueUrl };
        if (!e.catalogueUrl) return { ...base, kind: "none", ...unread(null, null, null) };
        if (e.catalogueUrl.startsWith(ownPrefix)) {
          const key = decodeURIComponent(e.catalogueUrl.slice(ownPrefix.length).split("/")[0] ?? "");
          const t0 = performance.now();
          const s = await mockDsp.summary(key);
          const latencyMs = Math.round(performance.now() - t0);
          if (!s)
            return { ...base, kind: "hub", ...unread(false, `no marketplace participant ${key}`, latencyMs) };
          for (const d of s.datasets)
            federated.push({
              id: d.id,
              title: d.title,
              participant: e.displayName,
              participantDid: e.did,
              offers: d.offers,
              catalogueDatasetId: d.datasetId,
            });
          return {
            ...base,
            kind: "hub",
            reachable: true,
            datasets: s.datasets.length,
            offers: s.datasets.reduce((n, d) => n + d.offers, 0),
            error: null,
            latencyMs,
          };
        }
        const r = await probeRemote(e.catalogueUrl);
        return { ...base, kind: "remote", ...r };
      }),
    );
    const without = targets.filter((t) => t.kind === "none").map((t) => t.displayName);
    for (const t of targets)
      if (t.reachable === false)
        problems.push(`${t.displayName}: catalogue at ${t.catalogueUrl} not readable (${t.error})`);
    if (!config.crawlerToken)
      problems.push(
        "CRAWLER_TOKEN is not set: a crawler outside the hub cannot read the demonstration catalogues (a signed-in session still can)",
      );
    const ids = new Map<string, number>();
    for (const d of federated) ids.set(d.id, (ids.get(d.id) ?? 0) + 1);
    for (const [id, n] of ids) if (n > 1) problems.push(`dataset id ${id} is offered by ${n} participants`);
    const reachable = targets.filter((t) => t.reachable === true).length;
    return {
      checkedAt: new Date().toISOString(),
      readOnly: true,
      crawler: {
        tokenConfigured: !!config.crawlerToken,
        catalogueRequestPath: "/api/mock-dsp/{participant}/catalog/request",
      },
      targets,
      participants: {
        total: entries.length,
        withCatalogue: entries.length - without.length,
        withoutCatalogue: without,
      },
      federatedDatasets: federated,
      totals: {
        datasets: targets.reduce((s, t) => s + t.datasets, 0),
        offers: targets.reduce((s, t) => s + t.offers, 0),
        reachableTargets: reachable,
        unreachableTargets: targets.filter((t) => t.reachable === false).length,
      },
      problems,
      ok: targets.every((t) => t.reachable !== false) && federated.length > 0,
    };
  }

  /** what the check reads that tells of its changes: the directory and the graph */
  const inputs = () => ({ directory: directory.version(), graph: graph.version() });
  type Inputs = ReturnType<typeof inputs>;
  const same = (a: Inputs, b: Inputs) => a.directory === b.directory && a.graph === b.graph;

  const checks = createHealthMonitor<{ inputs: Inputs; check: DiscoveryCheck } | { error: unknown }>({
    probe: async () => {
      const read = inputs(); // before the check: a change while it runs makes it outdated
      return { inputs: read, check: deepFrozen(await runCheck()) };
    },
    failed: (error) => ({ error }),
    intervalMs: READING_INTERVAL_MS,
    idleStopMs: READING_IDLE_STOP_MS,
  });

  /** the last check (see above), and how old it is */
  async function check(): Promise<Reading<DiscoveryCheck>> {
    let reading = await checks.read();
    if (!("error" in reading.health) && !same(reading.health.inputs, inputs())) {
      // the directory or the graph changed since that check began: answer one begun after this read
      // (once: under a stream of writes that one is as fresh as a check run for this request)
      checks.invalidate();
      reading = await checks.read();
    }
    const { health, ageMs } = reading;
    if ("error" in health) {
      checks.invalidate(); // a failed check is not kept: the next read tries again
      throw health.error;
    }
    return { value: health.check, ageMs };
  }

  return {
    check,
    /** a fresh check, kept for nobody (for tests: the answer the route would make now) */
    runCheck,
    /** forgets the last check (the next read waits for a new one) */
    invalidate: () => checks.invalidate(),
    close: () => checks.stop(),
  };
}
