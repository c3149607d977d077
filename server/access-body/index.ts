import { SUPERVISED } from "./model";
import { information, register } from "./public";
import { PURPOSES } from "./periods";
import { activityReport, reportPeriod } from "./report";
import { createAccessBodyService } from "./service";
import type { AccessBodyDeps } from "./context";

/**
 * The access body capability: the workflow service, the public register and information and the
 * activity report (the compliance summary and probes over it: server/compliance/index.ts).
 */
/** The record model the compliance summary and the conformance probes read (server/compliance). */
export { isOverseer } from "./actors";
export { berlinDate } from "./calendar";
export { clockView } from "./clock";
export { MACHINES, replay, UNDECIDED, UNDECIDED_APPLICATION_STATES, type Machine } from "./machines";
export type { ApplicationData, InformationRequestData, PermitData } from "./model";
export { PURPOSES } from "./periods";
export { register } from "./public";
export type { RecordKind, RecordStore, StoredRecord } from "./store";

export type { AccessBodyDeps as AccessBodyOptions } from "./context";

export async function createAccessBody(opts: AccessBodyDeps) {
  const service = await createAccessBodyService(opts);
  const { store, graph, now } = service;
  return {
    ...service,
    /** the purposes of Art. 53(1), for forms */
    purposes: PURPOSES,
    /** the organisations a finding may be about */
    supervised: SUPERVISED,
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
  };
}

export type AccessBody = Awaited<ReturnType<typeof createAccessBody>>;
