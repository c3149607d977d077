import type { SessionUser } from "../auth/user";
import { badGateway } from "../http/errors";
import { createKeptByInputs } from "../http/kept/kept";
import { didOfContext } from "./assets";
import { describeUpstream } from "./failures";
import { mergeById } from "./merge";
import { findOrganisationByName, knownOrganisation, slugOfDid } from "./organisations";
import { remainingDeadline, settle, type DataspaceRuntime } from "./runtime";
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

function task(kind: Task["kind"], r: Rec, participantId: string, title: string): Task {
  return { id: r["@id"], title, state: String(r.state ?? ""), participantId, kind, updatedAt: updatedAt(r) };
}

const negotiationTask = (r: Rec, participantId: string) =>
  task(
    "negotiation",
    r,
    participantId,
    `${r.type === "PROVIDER" ? "Offer of" : "Contract for"} ${str(r.assetId) ?? "an asset"} with ${counterParty(r)}`,
  );

const transferTask = (r: Rec, participantId: string) =>
  task(
    "transfer",
    r,
    participantId,
    `${r.type === "PROVIDER" ? "Provide" : "Transfer"} ${str(r.assetId) ?? "data"} (${str(r.transferType) ?? "transfer"})${str(r.contractId) ? ` under ${r.contractId}` : ""}`,
  );

function demoTasksOf(
  rt: DataspaceRuntime,
  scope: TaskScope,
  liveIds: Set<string>,
  created: readonly Rec[],
): Task[] {
  if (!rt.demoRecords) return [];
  const owned = (r: Rec) => {
    const ctx = str(r.participantContextId) ?? "";
    return scope.all || scope.contextIds.has(ctx);
  };
  // read only (turned into Task records): the bundle's frozen records, not a copy per request
  const demo = rt.demo.shared();
  const negotiations = demo.negotiations.filter((r) => owned(r) && !liveIds.has(r["@id"]));
  const transfers = mergeById([...created], demo.transfers).filter((r) => owned(r) && !liveIds.has(r["@id"]));
  return [
    ...negotiations.map((r) => negotiationTask(r, str(r.participantContextId) ?? "")),
    ...transfers.map((r) => transferTask(r, str(r.participantContextId) ?? "")),
  ];
}

/**
 * What a task list is made of: the upstream answers as they came (the read cache hands out the same
 * frozen arrays while they are valid), the demonstration transfers created here (the same frozen array
 * until one is created), or null for the context list when it failed.
 */
interface TaskInputs {
  contexts: readonly ParticipantContext[] | null;
  /** per context in scope: its negotiations, then its transfers, each null when that lookup failed */
  lists: (readonly Rec[] | null)[];
  created: readonly Rec[];
}

async function taskInputs(rt: DataspaceRuntime, scope: TaskScope): Promise<TaskInputs> {
  // no deadline armed per request: the context list has its own time-out, the lists what is left of it
  const startedAt = Date.now();
  const created = rt.demoRecords ? await rt.demoTransfers.listShared() : [];
  let contexts: readonly ParticipantContext[];
  try {
    contexts = await rt.connector.listParticipantContexts();
  } catch (e) {
    if (!rt.demoRecords) throw badGateway("Failed to list tasks", describeUpstream(e));
    return { contexts: null, lists: [], created };
  }
  const deadline = remainingDeadline(rt, startedAt);
  const lists = await Promise.all(
    inScopeActive(scope, contexts).flatMap((ctx) => [
      settle(rt.connector.listNegotiations(ctx["@id"], deadline)),
      settle(rt.connector.listTransfers(ctx["@id"], deadline)),
    ]),
  );
  return { contexts, lists: lists.map((r) => (r.ok ? r.value : null)), created };
}

const inScopeActive = (scope: TaskScope, contexts: readonly ParticipantContext[]) =>
  contexts.filter((c) => (c.state === undefined || c.state === "ACTIVATED") && inScope(scope, c));

function tasksOf(rt: DataspaceRuntime, scope: TaskScope, inputs: TaskInputs): Task[] {
  if (!inputs.contexts) return sortTasks(demoTasksOf(rt, scope, new Set(), inputs.created));
  const live = inScopeActive(scope, inputs.contexts).flatMap((ctx, i) => [
    ...(inputs.lists[2 * i]?.map((r) => negotiationTask(r, ctx["@id"])) ?? []),
    ...(inputs.lists[2 * i + 1]?.map((r) => transferTask(r, ctx["@id"])) ?? []),
  ]);
  return sortTasks([...live, ...demoTasksOf(rt, scope, new Set(live.map((t) => t.id)), inputs.created)]);
}

/** what of the caller the list depends on: its scope */
const scopeKey = (scope: TaskScope) =>
  scope.all ? "*" : `${[...scope.dids].sort().join(" ")}|${[...scope.contextIds].sort().join(" ")}`;

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptTasks = /* @__PURE__ */ createKeptByInputs<Task[]>();

/**
 * The caller's tasks, newest first. Kept, frozen (read it only), per caller scope and set of inputs
 * (server/http/kept `createKeptByInputs`): the context list, each in-scope context's negotiations and
 * transfers (or their failure), the demonstration transfers created here (the same frozen array until
 * one is created) and the bundled demonstration records.
 */
export async function listTasks(rt: DataspaceRuntime, user: SessionUser): Promise<Task[]> {
  const scope = scopeOf(user);
  const inputs = await taskInputs(rt, scope);
  return keptTasks(
    `scope:${scopeKey(scope)}`,
    [inputs.contexts, rt, rt.demoRecords, inputs.created, ...inputs.lists],
    () => tasksOf(rt, scope, inputs),
  );
}

const sortTasks = (tasks: Task[]) =>
  tasks.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
