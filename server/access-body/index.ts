import type { AuditLog } from "../audit/log";
import type { GraphStore } from "../graph";
import type { Relational } from "../storage/relational";
import { berlinDate } from "./calendar";
import { bodyAt, createKept, timedText, type TimedText } from "../http/kept-answers";
import type { EncodedBody } from "../http/node-adapter";
import { information, register } from "./public";
import { PURPOSES } from "./periods";
import { activityReport, reportPeriod } from "./report";
import { createAccessBodyService } from "./service";
import type { AccessBodyDeps } from "./context";

/**
 * The access body capability: the workflow service, the public register and information and the
 * activity report. The service container holds it with the compliance summary and the conformance
 * probes over its records (server/compliance/index.ts), which depend on it and not the other way.
 */
/** The record model the compliance summary and the conformance probes read (server/compliance). */
export { isOverseer } from "./actors";
export { berlinDate } from "./calendar";
export { clockView } from "./clock";
export { MACHINES, replay, type Machine } from "./machines";
export type { ApplicationData, InformationRequestData, PermitData } from "./model";
export { PURPOSES } from "./periods";
export { register } from "./public";
export type { RecordKind, RecordStore, StoredRecord } from "./store";

export interface AccessBodyOptions {
  rel: Relational;
  audit: AuditLog;
  graph: GraphStore;
  now?: () => Date;
  seed?: boolean;
  onPermitRevoked?: AccessBodyDeps["onPermitRevoked"];
}

export async function createAccessBody(opts: AccessBodyOptions) {
  const service = await createAccessBodyService(opts);
  const { store, graph, now, readyVersion } = service;
  // the answers of the read routes, kept per version of the records and the graph (server/http/kept-answers.ts)
  const keptRegister = createKept<TimedText>(4);
  const keptInformation = createKept<TimedText>(4);
  const keptReports = createKept<TimedText>(32);
  const inputs = async () => `${await readyVersion()}/${graph.version()}`;
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
    /** GET /api/permits: the JSON of register(), kept per version of the records and Berlin day (asOf) */
    async registerBody(): Promise<EncodedBody> {
      const version = await readyVersion();
      const at = now();
      const t = await keptRegister(version, berlinDate(at), async () => timedText(await register(store, at)));
      return bodyAt(t, at);
    },
    async information() {
      await service.ensureReady();
      return information(store, graph, now());
    },
    /** GET /api/information: the JSON of information(), kept per version of the records and the graph */
    async informationBody(): Promise<EncodedBody> {
      const version = await inputs();
      const at = now();
      const t = await keptInformation(version, "", async () =>
        timedText(await information(store, graph, at)),
      );
      return bodyAt(t, at);
    },
    async activityReport(period: { from: string; to: string }) {
      await service.ensureReady();
      return activityReport(store, graph, period, now());
    },
    /**
     * GET /api/activity-report as JSON: the JSON of activityReport(period), kept per version of the records
     * and the graph, Berlin day (the clocks' overdue and elapsed days count in days) and period
     */
    async activityReportBody(period: { from: string; to: string }): Promise<EncodedBody> {
      const version = await inputs();
      const at = now();
      const key = `${berlinDate(at)}/${period.from}/${period.to}`;
      const t = await keptReports(version, key, async () =>
        timedText(await activityReport(store, graph, period, at)),
      );
      return bodyAt(t, at);
    },
  };
}

export type AccessBody = Awaited<ReturnType<typeof createAccessBody>>;
