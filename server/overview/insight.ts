import type { AuditBatchWriter } from "../audit/batch-writer";
import type { Config } from "../config";
import type { GraphStore } from "../graph/store";
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
  graph: GraphStore;
  /** writes the federated and question query logs (server/audit/batch-writer.ts) */
  auditBatches?: AuditBatchWriter;
  config: Pick<Config, "federatedK" | "nlqProxyUrl" | "upstreamTimeoutMs">;
}) {
  const { graph, auditBatches, config } = deps;
  const omop = createOmopIndexCache(graph);
  const concepts = createConceptCache(graph);
  const k = config.federatedK;
  return {
    analytics: createAnalyticsService({ graph, omop, concepts, k }),
    federated: createFederatedService({ graph, omop, concepts, auditBatches, k }),
    nlq: createNlqService({
      graph,
      omop,
      concepts,
      auditBatches,
      k,
      proxyUrl: config.nlqProxyUrl,
      timeoutMs: config.upstreamTimeoutMs,
    }),
    eehrxf: createEehrxfService(graph, k),
    overview: createOverviewService(graph),
  };
}
