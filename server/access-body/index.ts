import type { AuditLog } from "../audit/log";
import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import type { GraphStore } from "../graph/store";
import type { Db } from "../storage/database";
import { complianceSummary } from "../compliance/summary";
import { createTck } from "../compliance/tck";
import { information, register } from "./public";
import { PURPOSES } from "./periods";
import { activityReport, reportPeriod } from "./report";
import { createAccessBodyService } from "./service";

/**
 * The access body capability as the service container holds it (services.accessBody): the
 * workflow service, the public register and information, the activity report, the compliance
 * summary and the conformance probes.
 */
export interface AccessBodyOptions {
  db: Db;
  audit: AuditLog;
  graph: GraphStore;
  config?: Pick<Config, "upstreamTimeoutMs">;
  runtime?: { internalOrigin: string | undefined };
  now?: () => Date;
  seed?: boolean;
}

export function createAccessBody(opts: AccessBodyOptions) {
  const service = createAccessBodyService(opts);
  const { store, graph, now } = service;
  const tck = createTck({
    store,
    graph,
    audit: opts.audit,
    runtime: opts.runtime ?? { internalOrigin: undefined },
    timeoutMs: opts.config?.upstreamTimeoutMs ?? 5000,
    now,
  });
  return {
    ...service,
    /** the purposes of Art. 53(1), for forms */
    purposes: PURPOSES,
    /** the report period of a request's `from`/`to` (400 when malformed; default: the last year) */
    reportPeriod: (url: URL) => reportPeriod(url, now()),
    async register() {
      await service.ensureReady();
      return register(store, now());
    },
    async information() {
      await service.ensureReady();
      return information(store, graph, now());
    },
    async activityReport(period: { from: string; to: string }) {
      await service.ensureReady();
      return activityReport(store, graph, period, now());
    },
    async compliance(user: SessionUser) {
      await service.ensureReady();
      return complianceSummary(store, graph, user, now());
    },
    async tck(opts: { rerun: boolean; cookie?: string }) {
      await service.ensureReady();
      return tck.results(opts);
    },
  };
}

export type AccessBody = ReturnType<typeof createAccessBody>;
