import { z } from "zod";
import type { SessionUser } from "../auth/user";
import { linked, type GraphNode, type GraphStore } from "../graph";
import {
  type ApplicationData,
  type PermitData,
  berlinDate,
  clockView,
  isOverseer,
  type RecordStore,
  type StoredRecord,
} from "../access-body";

/**
 * GET /api/compliance: the EHDS/GDPR/DSP/DCP compliance summary per participant. The EHDS part is
 * the chain application → approval → permit → contract, derived from the access body's records and
 * the marketplace's l1 nodes (HDABApproval, Contract): complete, still in progress, ended, or broken
 * with the step where it breaks and why. A contract usable without a valid permit is a violation.
 */

const text = z.string();
const chain = z.object({
  status: z.enum(["complete", "in-progress", "ended", "broken", "violation"]),
  /** the first step that is missing or wrong (null when complete) */
  breaksAt: z.enum(["application", "approval", "permit", "contract"]).nullable(),
  reason: text,
  application: z.object({ id: text, state: text, title: text }).nullable(),
  approval: z.object({ id: text, status: text }).nullable(),
  permit: z.object({ id: text, state: text, validUntil: text }).nullable(),
  contracts: z.array(
    z.object({ id: text, status: text, negotiationState: text, providerDid: text, consumerDid: text }),
  ),
  organisation: text,
  datasets: z.array(text),
});
export type Chain = z.infer<typeof chain>;
const count = z.number().int().min(0);
const standing = z.enum(["compliant", "attention", "non-compliant"]);
/** GET /api/compliance's answer (its declaration: contract.ts; built by `complianceSummary`) */
export const complianceSummarySchema = z.object({
  generatedAt: z.iso.datetime(),
  standards: z.array(text),
  totals: z.object({ participants: count, chains: count, complete: count, violations: count, broken: count }),
  participants: z.array(
    z.object({
      participantId: text,
      displayName: text,
      role: text,
      ehds: z.object({
        status: standing,
        chains: z.array(chain),
        complete: count,
        inProgress: count,
        ended: count,
        broken: count,
        violations: count,
      }),
      dcp: z.object({ did: text, method: text, wellFormed: z.boolean(), didDocumentUrl: text.nullable() }),
      dsp: z.object({ endpoint: text.nullable(), protocol: text, httpsEndpoint: z.boolean() }),
      gdpr: z.object({ legalBasis: text, processingOnlyUnderPermit: z.boolean() }),
      status: standing,
    }),
  ),
  chains: z.array(chain).optional().describe("the access body's: every chain once"),
});
type ComplianceSummary = z.infer<typeof complianceSummarySchema>;

/** a contract that can still be used: active (or finalised and neither suspended nor terminated) and not past its end date */
const usableOn = (today: string) => (c: GraphNode) => {
  const ended = typeof c.properties.validUntil === "string" && c.properties.validUntil < today;
  const live =
    c.properties.status === "active" ||
    (c.properties.negotiationState === "FINALIZED" &&
      c.properties.status !== "suspended" &&
      c.properties.status !== "terminated");
  return live && !ended;
};
const contractView = (c: GraphNode) => ({
  id: c.id,
  status: String(c.properties.status ?? ""),
  negotiationState: String(c.properties.negotiationState ?? ""),
  providerDid: String(c.properties.providerDid ?? ""),
  consumerDid: String(c.properties.consumerDid ?? ""),
});

export const DID_WEB = /^did:web:[a-z0-9-]+(\.[a-z0-9-]+)*(%3A\d+)?(:[A-Za-z0-9._~-]+)*$/i;

/** where a did:web DID document lives (W3C did:web method) */
export function didWebDocumentUrl(did: string): string | null {
  if (!DID_WEB.test(did)) return null;
  const [host, ...path] = did.slice("did:web:".length).split(":");
  const origin = `https://${decodeURIComponent(host)}`;
  return path.length ? `${origin}/${path.join("/")}/did.json` : `${origin}/.well-known/did.json`;
}

export async function buildChains(store: RecordStore, graph: GraphStore, now: Date): Promise<Chain[]> {
  const USABLE = usableOn(berlinDate(now));
  const apps = await store.list<ApplicationData>("application");
  const permits = new Map((await store.list<PermitData>("permit")).map((p) => [p.id, p]));
  const contracts = new Map(
    (await graph.findNodes({ label: "Contract", limit: 10_000 })).map((c) => [c.id, c]),
  );
  const approvals = new Map(
    (await graph.findNodes({ label: "HDABApproval", limit: 10_000 })).map((a) => [a.id, a]),
  );
  const approves = new Map<string, string[]>();
  for (const a of approvals.values())
    approves.set(
      a.id,
      (await linked(graph, a.id, "APPROVES", "out")).map((n) => n.id),
    );
  const covered = new Set<string>();
  const chains: Chain[] = [];

  for (const app of apps) {
    const permit = app.data.permitId ? permits.get(app.data.permitId) : undefined;
    const approvalId = permit?.data.approvalNodeId ?? app.data.approvalNodeId;
    const approval = approvalId ? approvals.get(approvalId) : undefined;
    const contractIds = new Set([
      ...(permit?.data.contractIds ?? []),
      ...(approvalId ? (approves.get(approvalId) ?? []) : []),
    ]);
    const linked = [...contractIds].map((id) => contracts.get(id)).filter((c): c is GraphNode => !!c);
    linked.forEach((c) => covered.add(c.id));
    chains.push(chainOf(app, approval, permit, linked, USABLE, now));
  }

  // marketplace contracts no record accounts for
  for (const c of contracts.values()) {
    if (covered.has(c.id)) continue;
    const approval = [...approvals.values()].find((a) => (approves.get(a.id) ?? []).includes(c.id));
    const usable = USABLE(c);
    chains.push({
      status: usable ? "violation" : "broken",
      breaksAt: approval ? "application" : "approval",
      reason: approval
        ? `Contract ${c.id} is approved by ${approval.id}, but the access body has no application on record for it`
        : `Contract ${c.id} has no HDAB approval${usable ? " and is usable" : ""}`,
      application: null,
      approval: approval ? { id: approval.id, status: String(approval.properties.status ?? "") } : null,
      permit: null,
      contracts: [contractView(c)],
      organisation: String(c.properties.consumerDid ?? ""),
      datasets: [String(c.properties.assetId ?? "")],
    });
  }
  return chains;
}

function chainOf(
  app: StoredRecord<ApplicationData>,
  approval: GraphNode | undefined,
  permit: StoredRecord<PermitData> | undefined,
  contracts: GraphNode[],
  USABLE: (c: GraphNode) => boolean,
  now: Date,
): Chain {
  const base = {
    application: { id: app.id, state: app.state, title: app.data.title },
    approval: approval ? { id: approval.id, status: String(approval.properties.status ?? "") } : null,
    permit: permit ? { id: permit.id, state: permit.state, validUntil: permit.data.validUntil } : null,
    contracts: contracts.map(contractView),
    organisation: app.organisation,
    datasets: app.data.datasets,
  };
  const usable = contracts.filter(USABLE);
  const done = (status: Chain["status"], breaksAt: Chain["breaksAt"], reason: string): Chain => ({
    ...base,
    status,
    breaksAt,
    reason,
  });

  if (app.state !== "GRANTED") {
    if (usable.length)
      return done(
        "violation",
        "permit",
        `Contract ${usable[0].id} is usable but application ${app.id} is ${app.state}`,
      );
    if (app.state === "REFUSED" || app.state === "WITHDRAWN")
      return done("ended", "approval", `Application ${app.state.toLowerCase()}`);
    const c = clockView(app.data.clock, now);
    return done(
      "in-progress",
      "approval",
      c.deadlineDate
        ? `Awaiting the decision (state ${app.state}, due ${c.deadlineDate}${c.overdue ? ", overdue" : ""})`
        : `Awaiting the decision (state ${app.state})`,
    );
  }
  if (!permit)
    return done("broken", "permit", `Application ${app.id} was granted but no permit is on record`);
  if (permit.state !== "ACTIVE") {
    if (usable.length)
      return done(
        "violation",
        "permit",
        `Contract ${usable[0].id} is still usable although permit ${permit.id} is ${permit.state}`,
      );
    return done(
      "ended",
      "permit",
      `Permit ${permit.id} ${permit.state.toLowerCase()}${contracts.length ? "; its contracts are no longer usable" : ""}`,
    );
  }
  if (!approval)
    return done("broken", "approval", `Permit ${permit.id} has no HDABApproval node in the marketplace`);
  if (approval.properties.status !== "GRANTED")
    return done(
      "broken",
      "approval",
      `The marketplace approval ${approval.id} says ${String(approval.properties.status)}, the permit is ACTIVE`,
    );
  if (!contracts.length)
    return done(
      "in-progress",
      "contract",
      `Permit ${permit.id} is active; no contract has been negotiated under it yet`,
    );
  if (!usable.length)
    return done(
      "in-progress",
      "contract",
      `Contract ${contracts[0].id} is ${String(contracts[0].properties.status ?? contracts[0].properties.negotiationState)}`,
    );
  return done(
    "complete",
    null,
    `Application ${app.id} → approval ${approval.id} → permit ${permit.id} → contract ${usable.map((c) => c.id).join(", ")}`,
  );
}

export async function complianceSummary(
  store: RecordStore,
  graph: GraphStore,
  user: SessionUser,
  now: Date,
): Promise<ComplianceSummary> {
  const participants = await graph.findNodes({ label: "Participant", limit: 1000 });
  const chains = await buildChains(store, graph, now);
  const visibleParticipants = isOverseer(user)
    ? participants
    : participants.filter(
        (p) =>
          p.properties.displayName === user.organisation ||
          (user.participantDid && p.properties.did === user.participantDid),
      );

  const out = visibleParticipants.map((p): ComplianceSummary["participants"][number] => {
    const did = String(p.properties.did ?? "");
    const name = String(p.properties.displayName ?? p.id);
    const role = String(p.properties.role ?? "");
    const mine = chains.filter(
      (c) =>
        c.organisation === name ||
        c.organisation === did ||
        c.contracts.some((k) => k.providerDid === did || k.consumerDid === did),
    );
    const count = (s: Chain["status"]) => mine.filter((c) => c.status === s).length;
    const endpoint = typeof p.properties.dspEndpoint === "string" ? p.properties.dspEndpoint : null;
    const didOk = DID_WEB.test(did);
    const ehdsStatus = count("violation") ? "non-compliant" : count("broken") ? "attention" : "compliant";
    return {
      participantId: p.id,
      displayName: name,
      role,
      ehds: {
        status: ehdsStatus,
        chains: mine,
        complete: count("complete"),
        inProgress: count("in-progress"),
        ended: count("ended"),
        broken: count("broken"),
        violations: count("violation"),
      },
      dcp: {
        did,
        method: did.split(":").slice(0, 2).join(":"),
        wellFormed: didOk,
        didDocumentUrl: didWebDocumentUrl(did),
      },
      dsp: {
        endpoint,
        protocol: "dataspace-protocol-http:2025-1",
        httpsEndpoint: !!endpoint && endpoint.startsWith("https://"),
      },
      gdpr: {
        // as described in the literature on the EHDS (not checked against the recitals)
        legalBasis:
          role === "DATA_USER"
            ? "GDPR Art. 6(1) and Art. 9(2), with processing only under an EHDS data permit or approved data request (EHDS Art. 61(1))"
            : role === "DATA_HOLDER"
              ? "GDPR Art. 6(1)(c) with Art. 9(2)(i) or (j): the legal obligation to make data available for secondary use"
              : "GDPR Art. 6(1)(e): tasks carried out in the public interest",
        processingOnlyUnderPermit: mine.every((c) => c.status !== "violation"),
      },
      status:
        !didOk || ehdsStatus === "non-compliant"
          ? "non-compliant"
          : ehdsStatus === "attention" || (endpoint !== null && !endpoint.startsWith("https://"))
            ? "attention"
            : "compliant",
    };
  });
  return {
    generatedAt: now.toISOString(),
    standards: ["EHDS Regulation (EU) 2025/327", "GDPR", "DSP 2025-1", "DCP v1.0"],
    totals: {
      participants: out.length,
      chains: out.reduce((s, p) => s + p.ehds.chains.length, 0),
      complete: out.reduce((s, p) => s + p.ehds.complete, 0),
      violations: out.reduce((s, p) => s + p.ehds.violations, 0),
      broken: out.reduce((s, p) => s + p.ehds.broken, 0),
    },
    participants: out,
    // the access body sees every chain once, including those of participants without a node
    chains: isOverseer(user) ? chains : undefined,
  };
}
