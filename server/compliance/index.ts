import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import { createAccessBody, type AccessBodyOptions } from "../access-body";
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
  return {
    ...accessBody,
    async compliance(user: SessionUser) {
      await accessBody.ensureReady();
      return complianceSummary(store, graph, user, now());
    },
    async tck(opts: { rerun: boolean; cookie?: string }) {
      await accessBody.ensureReady();
      return tck.results(opts);
    },
  };
}

export type AccessBodyWithCompliance = Awaited<ReturnType<typeof createAccessBodyWithCompliance>>;
