import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import { berlinDate, createAccessBody, isOverseer, type AccessBodyOptions } from "../access-body";
import { bodyAt, createKept, timedText, type TimedText } from "../http/kept-answers";
import type { EncodedBody } from "../http/node-adapter";
import { complianceSummary } from "./summary";
import { createTck } from "./tck";

/**
 * The access body as the service container holds it (services.accessBody): its workflows, register,
 * information and activity report (server/access-body) with the compliance summary and the
 * conformance probes over its records. Compliance depends on the access body, never the reverse.
 */
export interface AccessBodyWithComplianceOptions extends AccessBodyOptions {
  config?: Pick<Config, "upstreamTimeoutMs">;
  runtime?: { internalOrigin: string | undefined };
}

export async function createAccessBodyWithCompliance(opts: AccessBodyWithComplianceOptions) {
  const accessBody = await createAccessBody(opts);
  const { store, graph, now } = accessBody;
  const tck = createTck({
    store,
    graph,
    audit: opts.audit,
    runtime: opts.runtime ?? { internalOrigin: undefined },
    timeoutMs: opts.config?.upstreamTimeoutMs ?? 5000,
    now,
  });
  // GET /api/compliance, kept per version of the records and the graph (server/http/kept-answers.ts)
  const keptSummaries = createKept<TimedText>(64);
  async function keptSummary(user: SessionUser, at: Date): Promise<TimedText> {
    const version = `${await accessBody.readyVersion()}/${graph.version()}`;
    const caller = isOverseer(user) ? "*" : JSON.stringify([user.organisation, user.participantDid ?? null]);
    return keptSummaries(version, `${berlinDate(at)}/${caller}`, async () =>
      timedText(await complianceSummary(store, graph, user, at)),
    );
  }
  return {
    ...accessBody,
    async compliance(user: SessionUser) {
      await accessBody.ensureReady();
      return complianceSummary(store, graph, user, now());
    },
    /**
     * GET /api/compliance: the JSON of compliance(user), encoded once per version of the records and the
     * graph, Berlin day (contracts end and clocks run out in days) and caller class (an overseer sees
     * every participant and chain, anyone else the participants of their organisation, by name or DID),
     * sent as the kept bytes around the time of the read
     */
    async complianceBody(user: SessionUser): Promise<EncodedBody> {
      const at = now();
      return bodyAt(await keptSummary(user, at), at);
    },
    async tck(opts: { rerun: boolean; cookie?: string }) {
      await accessBody.ensureReady();
      return tck.results(opts);
    },
    /** GET /api/compliance/tck: the JSON of tck(opts), the last run's encoded once */
    async tckBody(opts: { rerun: boolean; cookie?: string }) {
      await accessBody.ensureReady();
      return tck.resultsBody(opts);
    },
  };
}

export type AccessBodyWithCompliance = Awaited<ReturnType<typeof createAccessBodyWithCompliance>>;
