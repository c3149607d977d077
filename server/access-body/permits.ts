import type { SessionUser } from "../auth/user";
import type { GraphNode, Mutation } from "../graph";
import { actorOf, assertRole, orgDid, orgSlug, parseBody } from "./actors";
import { addDays, addMonths, berlinDate } from "./calendar";
import { stopClock } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import { APPLICATION, PERMIT, transition } from "./machines";
import type { ApplicationData, ApplicationDetail, PermitData } from "./model";
import { issuePermitSchema, refuseApplicationSchema, revokePermitSchema } from "./model";
import { decided, moveAs, step } from "./step";
import { permitView, type RecordViews } from "./views";

/**
 * The decision on an application: a data permit (with its HDABApproval node in the marketplace,
 * approving the matching contracts) or a refusal; and the revocation of a permit, which suspends
 * the contracts it backs.
 */
export function createPermits(ctx: AccessBodyContext, views: RecordViews) {
  const { store, graph, now, ensureReady, nextId, createRecord, get, syncGraph } = ctx;
  const { applicationDetail } = views;
  const reader = ctx.reader("permit", (r: Rec<PermitData>) => permitView(r));

  async function matchingContracts(organisation: string, datasets: string[]): Promise<GraphNode[]> {
    const did = orgDid(organisation);
    if (!did) return [];
    const assets = new Set(datasets.map((d) => `asset-${d.replace(/^dataset-/, "")}`));
    const contracts = await graph.findNodes({ label: "Contract", where: { consumerDid: did }, limit: 1000 });
    return contracts.filter(
      (c) => assets.has(String(c.properties.assetId)) && c.properties.status !== "terminated",
    );
  }

  async function issuePermit(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "issue a data permit");
    const required = ["applicationId", "durationMonths", "conditions", "secureProcessingEnvironment"];
    const input = parseBody(body, issuePermitSchema, ...required);
    const rec = await get<ApplicationData>("application", input.applicationId);
    transition(APPLICATION, rec.state, "grant"); // fail fast before looking at the graph
    const datasets = input.datasets ?? rec.data.datasets;
    const titles = await ctx.datasetTitles(datasets);
    const contracts = await matchingContracts(rec.organisation, datasets);
    const existingApproval = rec.data.approvalNodeId ? await graph.getNode(rec.data.approvalNodeId) : null;
    const medreg = await graph.getNode("participant-medreg");
    const at = now();
    const result = await store.tx(async (w) => {
      const current = (await w.get<ApplicationData>(rec.id))!;
      transition(APPLICATION, current.state, "grant");
      const id = await nextId(w, "MEDREG-DP", at);
      const issuedDate = berlinDate(at);
      const approvalNodeId = existingApproval ? existingApproval.id : `approval-${id.toLowerCase()}`;
      const change = { event: "issue", actor: actorOf(user), at };
      const permit = await createRecord<PermitData>(w, PERMIT, id, current.organisation, current.id, change, {
        applicationId: current.id,
        datasets,
        datasetTitles: titles,
        purpose: input.purpose ?? current.data.purpose,
        organisationDid: current.data.organisationDid,
        issuedAt: at.toISOString(),
        issuedDate,
        validFrom: issuedDate,
        validUntil: addDays(addMonths(issuedDate, input.durationMonths), -1),
        durationMonths: input.durationMonths,
        conditions: input.conditions,
        secureProcessingEnvironment: input.secureProcessingEnvironment,
        pseudonymised: current.data.pseudonymised,
        issuedBy: user.username,
        approvalNodeId,
        contractIds: contracts.map((c) => c.id),
        revocation: null,
        expiredAt: null,
        seeded: null,
      });
      const app = await moveAs(w, user, at, APPLICATION, current, "grant", `data permit ${id}`, {
        ...current.data,
        clock: stopClock(current.data.clock, at),
        decision: decided("GRANTED", null, at, user),
        permitId: id,
        approvalNodeId,
      });
      return { permit, app };
    });
    // the marketplace learns of the permit: an HDABApproval node approving the matching contracts
    const p = result.permit;
    // the research programme a patient sees, gives and withdraws consent to (0119), by the application's title
    const approvalProps = {
      permitNumber: p.id,
      title: rec.data.title,
      status: "GRANTED",
      applicant: orgSlug(p.organisation),
      applicationId: rec.id,
      applicationDate: rec.data.receivedDate,
      decisionDate: p.data.issuedDate,
      validUntil: p.data.validUntil,
      purpose: p.data.purpose,
      legalBasis: "Regulation (EU) 2025/327 (EHDS) Art. 68 (data permit)",
      processingEnvironment: p.data.secureProcessingEnvironment,
    };
    const approvalId = p.data.approvalNodeId!;
    const edge = (id: string, target: string, type: string): Mutation => ({
      op: "createEdge",
      edge: { id, source: approvalId, target, type },
    });
    const mutations: Mutation[] = existingApproval
      ? [{ op: "updateNode", id: existingApproval.id, properties: approvalProps }]
      : [
          {
            op: "createNode",
            node: { id: approvalId, label: "HDABApproval", layer: "l1", properties: approvalProps },
          },
          ...(medreg ? [edge(`issued-by-${approvalId}`, medreg.id, "ISSUED_BY")] : []),
          ...contracts.map((c) => edge(`approves-${approvalId}-${c.id}`, c.id, "APPROVES")),
        ];
    for (const c of contracts) {
      mutations.push({
        op: "updateNode",
        id: c.id,
        properties: {
          permitStatus: "GRANTED",
          ...(c.properties.status === "awaitingPermit" ? { status: "active" } : {}),
        },
      });
    }
    await syncGraph(mutations, { action: "access-body.permit.issue", actor: user.username, target: p.id });
    return permitView((await store.get<PermitData>(p.id))!);
  }

  async function refuseApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "refuse an application");
    const input = parseBody(body, refuseApplicationSchema, "applicationId", "reasons");
    const at = now();
    const done = await ctx.changeApplication(input.applicationId, user, async (w, current) => {
      transition(APPLICATION, current.state, "refuse");
      await ctx.withdrawOpenRequest(w, current.id, "application refused", user, at);
      return await moveAs(w, user, at, APPLICATION, current, "refuse", input.reasons, {
        ...current.data,
        clock: stopClock(current.data.clock, at),
        completionDueDate: null,
        decision: decided("REFUSED", input.reasons, at, user),
      });
    });
    return await applicationDetail(done, at);
  }

  async function decidePermit(body: Record<string, unknown>, user: SessionUser) {
    return body.decision === "refuse"
      ? { kind: "refusal" as const, application: await refuseApplication(body, user) }
      : { kind: "permit" as const, permit: await issuePermit(body, user) };
  }

  async function revokePermit(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "revoke a data permit");
    const input = parseBody(body, revokePermitSchema, "permitId", "reason");
    const at = now();
    const done = await step<PermitData>(store, {
      id: input.permitId,
      machine: PERMIT,
      event: "revoke",
      user,
      at,
      data: (rec) => ({
        ...rec.data,
        revocation: { at: at.toISOString(), date: berlinDate(at), reason: input.reason, by: user.username },
      }),
      note: input.reason,
    });
    // the agreements the permit backs stop being usable: the marketplace contracts are suspended
    const mutations: Mutation[] = [];
    // the revocation is committed: a graph that cannot answer must not turn it into a 503 (syncGraph logs)
    const inGraph = (id: string) =>
      graph.getNode(id).then(
        (n) => !!n,
        () => true,
      );
    if (done.data.approvalNodeId && (await inGraph(done.data.approvalNodeId))) {
      mutations.push({
        op: "updateNode",
        id: done.data.approvalNodeId,
        properties: { status: "REVOKED", revokedDate: done.data.revocation!.date },
      });
    }
    for (const id of done.data.contractIds) {
      if (await inGraph(id))
        mutations.push({
          op: "updateNode",
          id,
          properties: {
            status: "suspended",
            permitStatus: "REVOKED",
            suspendedReason: `data permit ${done.id} revoked`,
          },
        });
    }
    await syncGraph(mutations, {
      action: "access-body.permit.revoke",
      actor: user.username,
      target: done.id,
    });
    // and at the connector: the transfers of those agreements are terminated (pending and retried on failure)
    try {
      await ctx.onPermitRevoked?.(done.id, input.reason, user.username);
    } catch (e) {
      console.error(`[access-body] cutting off the agreements of ${done.id} failed:`, e);
    }
    return permitView(done);
  }

  return {
    issuePermit,
    refuseApplication,
    decidePermit,
    revokePermit,
    listPermits: reader.list,
    getPermit: reader.get,
  };
}
