import type { SessionUser } from "../auth/user";
import { badGateway } from "../http/errors";
import { didOfContext } from "./assets";
import { describeUpstream } from "./failures";
import { mergeById } from "./merge";
import { findOrganisationByName, knownOrganisation, slugOfDid } from "./organisations";
import { operationDeadline, settle, type DataspaceRuntime } from "./runtime";
import type { ParticipantContext } from "./upstream-schemas";

/**
 * The task list (spec: GET /api/tasks): the negotiations and transfers of every participant
 * context the caller's organisation owns, as Task records; CONNECTOR_ADMIN sees all contexts.
 */

export interface Task {
  id: string;
  title: string;
  state: string;
  participantId: string;
  kind: "negotiation" | "transfer";
  updatedAt: string;
}

type Rec = Record<string, unknown> & { "@id": string };

export interface TaskScope {
  all: boolean;
  dids: Set<string>;
  /** context ids / organisation slugs the caller owns (demonstration records name contexts by slug) */
  contextIds: Set<string>;
}

export function scopeOf(user: SessionUser): TaskScope {
  if (user.roles.includes("CONNECTOR_ADMIN")) return { all: true, dids: new Set(), contextIds: new Set() };
  const org =
    (user.participantDid ? knownOrganisation(user.participantDid, undefined) : undefined) ??
    findOrganisationByName(user.organisation);
  const dids = new Set([user.participantDid, org?.did].filter((d): d is string => !!d));
  return { all: false, dids, contextIds: new Set(org ? [org.slug] : []) };
}

function inScope(scope: TaskScope, ctx: ParticipantContext): boolean {
  if (scope.all) return true;
  const did = didOfContext(ctx);
  return (did !== "" && scope.dids.has(did)) || scope.contextIds.has(ctx["@id"]);
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

function updatedAt(r: Rec): string {
  const t = [r.stateTimestamp, r.updatedAt, r.createdAt].find((v) => typeof v === "number") as
    number | undefined;
  return new Date(t ?? 0).toISOString();
}

function counterParty(r: Rec): string {
  const id = str(r.counterPartyId);
  if (id) return knownOrganisation(id, slugOfDid(id))?.displayName ?? id;
  return str(r.counterPartyAddress) ?? "an unknown counter-party";
}

export function negotiationTask(r: Rec, participantId: string): Task {
  const asset = str(r.assetId);
  const side = r.type === "PROVIDER" ? "Offer of" : "Contract for";
  return {
    id: r["@id"],
    title: `${side} ${asset ?? "an asset"} with ${counterParty(r)}`,
    state: String(r.state ?? ""),
    participantId,
    kind: "negotiation",
    updatedAt: updatedAt(r),
  };
}

export function transferTask(r: Rec, participantId: string): Task {
  const asset = str(r.assetId);
  const kind = str(r.transferType) ?? "transfer";
  return {
    id: r["@id"],
    title: `${r.type === "PROVIDER" ? "Provide" : "Transfer"} ${asset ?? "data"} (${kind})${str(r.contractId) ? ` under ${r.contractId}` : ""}`,
    state: String(r.state ?? ""),
    participantId,
    kind: "transfer",
    updatedAt: updatedAt(r),
  };
}

async function demoTasks(rt: DataspaceRuntime, scope: TaskScope, liveIds: Set<string>): Promise<Task[]> {
  if (!rt.demoRecords) return [];
  const owned = (r: Rec) => {
    const ctx = str(r.participantContextId) ?? "";
    return scope.all || scope.contextIds.has(ctx);
  };
  // read only (turned into Task records): the bundle's frozen records, not a copy per request
  const demo = rt.demo.shared();
  const negotiations = demo.negotiations.filter((r) => owned(r) && !liveIds.has(r["@id"]));
  const transfers = mergeById(await rt.demoTransfers.list(), demo.transfers).filter(
    (r) => owned(r) && !liveIds.has(r["@id"]),
  );
  return [
    ...negotiations.map((r) => negotiationTask(r, str(r.participantContextId) ?? "")),
    ...transfers.map((r) => transferTask(r, str(r.participantContextId) ?? "")),
  ];
}

export async function listTasks(rt: DataspaceRuntime, user: SessionUser): Promise<Task[]> {
  const scope = scopeOf(user);
  const deadline = operationDeadline(rt);
  let contexts: ParticipantContext[];
  try {
    contexts = (await rt.connector.listParticipantContexts(deadline)).filter(
      (c) => c.state === undefined || c.state === "ACTIVATED",
    );
  } catch (e) {
    if (!rt.demoRecords) throw badGateway("Failed to list tasks", describeUpstream(e));
    return sortTasks(await demoTasks(rt, scope, new Set()));
  }
  const mine = contexts.filter((c) => inScope(scope, c));
  const perContext = await Promise.all(
    mine.map(async (ctx) => {
      const [negotiations, transfers] = await Promise.all([
        settle(rt.connector.listNegotiations(ctx["@id"], deadline)),
        settle(rt.connector.listTransfers(ctx["@id"], deadline)),
      ]);
      return [
        ...(negotiations.ok ? negotiations.value.map((r) => negotiationTask(r, ctx["@id"])) : []),
        ...(transfers.ok ? transfers.value.map((r) => transferTask(r, ctx["@id"])) : []),
      ];
    }),
  );
  const live = perContext.flat();
  return sortTasks([...live, ...(await demoTasks(rt, scope, new Set(live.map((t) => t.id))))]);
}

const sortTasks = (tasks: Task[]) =>
  tasks.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
