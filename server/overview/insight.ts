import type { AuditLog } from "../audit/log";
import type { Config } from "../config";
import type { GraphStore } from "../graph/store";
import type { Relational } from "../storage/relational";
import { createConceptCache } from "../analytics/concepts";
import { createOmopIndexCache } from "../analytics/omop-index";
import { createAnalyticsService } from "../analytics/service";
import { createEehrxfService } from "../eehrxf/service";
import { createFederatedService } from "../federated/service";
import { createNlqService } from "../nlq/service";
import { createOverviewService } from "./service";

/**
 * The insight services, built together because they share one OMOP index and one concept
 * dictionary per graph version (server/analytics): analytics, federated cohorts, questions,
 * EEHRxF coverage and the persona overview.
 */
export function createInsightServices(deps: {
  rel?: Relational;
  graph: GraphStore;
  audit: AuditLog;
  config: Pick<Config, "federatedK" | "nlqProxyUrl" | "upstreamTimeoutMs">;
}) {
  const { rel, graph, audit, config } = deps;
  const omop = createOmopIndexCache(graph);
  const concepts = createConceptCache(graph);
  const k = config.federatedK;
  return {
    analytics: createAnalyticsService({ graph, omop, concepts, k }),
    federated: createFederatedService({ graph, omop, concepts, audit, rel, k }),
    nlq: createNlqService({
      graph,
      omop,
      concepts,
      audit,
      rel,
      k,
      proxyUrl: config.nlqProxyUrl,
      timeoutMs: config.upstreamTimeoutMs,
    }),
    eehrxf: createEehrxfService(graph),
    overview: createOverviewService(graph),
  };
}
