import { createApplications } from "./applications";
import { createAccessBodyContext, type AccessBodyDeps } from "./context";
import { createDataRequests } from "./data-requests";
import { createFindings } from "./findings";
import { createInformationRequests } from "./information-requests";
import { purposeLabel } from "./periods";
import { createPermits } from "./permits";
import { createWorkQueue } from "./queue";
import { createResults } from "./results";
import { createRecordViews } from "./views";

/**
 * The access body's work: data access applications (Art. 67–68) with their statutory clock, data
 * requests (Art. 69), data permits, information requests, supervision findings and declared results.
 * Every state change goes through a machine of machines.ts, by `step`/`move` of step.ts, and is
 * written by store.tx together with its history entry and its audit entry. HDAB_AUTHORITY decides;
 * DATA_USER submits and answers for their own organisation; CONNECTOR_ADMIN reads everything.
 */

export async function createAccessBodyService(deps: AccessBodyDeps) {
  const ctx = await createAccessBodyContext(deps);
  const views = createRecordViews(ctx);
  return {
    store: ctx.store,
    graph: ctx.graph,
    now: ctx.now,
    ensureReady: async (): Promise<void> => {
      await ctx.ensureReady();
    },
    /** ensureReady, answering the records' version after it (what kept answers key by, server/http/kept) */
    readyVersion: ctx.ensureReady,
    applicationView: views.applicationView,
    ...createApplications(ctx, views),
    ...createInformationRequests(ctx, views),
    ...createPermits(ctx, views),
    ...createDataRequests(ctx),
    ...createFindings(ctx),
    ...createResults(ctx),
    ...createWorkQueue(ctx, views),
    purposeLabel,
  };
}
