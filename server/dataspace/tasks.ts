import { z } from "zod";
import { transferTypeLabel } from "../../app/components/ui/labels";
import type { SessionUser } from "../auth/user";
import { createKeptByInputs } from "../http/kept/kept";
import { didOfContext, listAssetGroups } from "./assets";
import { liveOrNull } from "./failures";
import { mergeById } from "./merge";
import { assetNames, counterPartyName, partyNames } from "./names";
import { findOrganisationByName, knownOrganisation } from "../dataspace-protocol";
import { listParticipants } from "./participants";
import { orNull, remainingDeadline, type DataspaceRuntime } from "./runtime";
import type { ParticipantContext } from "./upstream-schemas";

/**
 * The task list (spec: GET /api/tasks): the negotiations and transfers of every participant
 * context the caller's organisation owns, as Task records; CONNECTOR_ADMIN sees all contexts.
 */

export const taskSchema = z.object({
  id: z.string(),
  title: z
    .string()
    .describe(
      "in words: the asset's name, the counter-party's display name and a transfer's type (\"Contract for FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin\")",
    ),
  state: z.string(),
  participantId: z.string(),
  kind: z.enum(["negotiation", "transfer"]),
  updatedAt: z.string(),
});
export type Task = z.infer<typeof taskSchema>;

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

/** what a title names a record's ids by: the participant contexts' display names and the assets' names */
type Names = ReturnType<typeof namesOf>;

function task(kind: Task["kind"], r: Rec, participantId: string, names: Names): Task {
  const title = titleOf(kind, r, names);
  return { id: r["@id"], title, state: String(r.state ?? ""), participantId, kind, updatedAt: updatedAt(r) };
}

/**
 * A task's title in words (issue 40, names not ids): the asset's name as the asset lists give it, the
 * counter-party's display name and the transfer type in words, never an identifier the view has to
 * explain ("Contract for FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin", "Transfer of … from
 * AlphaKlinik Berlin (HTTP pull)"); an asset no list names keeps its id.
 */
function titleOf(kind: Task["kind"], r: Rec, names: Names): string {
  const assetId = str(r.assetId);
  const asset = (assetId && names.assets.get(assetId)) || assetId;
  const party = counterPartyName(
    str(r.counterPartyId) ?? "",
    str(r.counterPartyAddress) ?? "",
    names.parties,
  );
  // a counter-party known only by an address is left out: a URL is not a name
  const known = party !== "unknown" && !party.includes("/");
  const provider = r.type === "PROVIDER";
  if (kind === "negotiation")
    return provider
      ? `Offer of ${asset || "an asset"}${known ? ` to ${party}` : ""}`
      : `Contract for ${asset || "an asset"}${known ? ` with ${party}` : ""}`;
  const type = transferTypeLabel(str(r.transferType));
  const what = `${provider ? "Delivery" : "Transfer"} of ${asset || "data"}`;
  return `${what}${known ? ` ${provider ? "to" : "from"} ${party}` : ""}${type ? ` (${type})` : ""}`;
}

function demoTasksOf(
  rt: DataspaceRuntime,
  scope: TaskScope,
  liveIds: Set<string>,
  created: readonly Rec[],
  names: Names,
): Task[] {
  if (!rt.demoRecords) return [];
  const owned = (r: Rec) => scope.all || scope.contextIds.has(str(r.participantContextId) ?? "");
  // read only (turned into Task records): the bundle's frozen records, not a copy per request
  const demo = rt.demo.shared();
  const negotiations = demo.negotiations.filter((r) => owned(r) && !liveIds.has(r["@id"]));
  const transfers = mergeById([...created], demo.transfers).filter((r) => owned(r) && !liveIds.has(r["@id"]));
  return [
    ...negotiations.map((r) => task("negotiation", r, str(r.participantContextId) ?? "", names)),
    ...transfers.map((r) => task("transfer", r, str(r.participantContextId) ?? "", names)),
  ];
}

type TaskInputs = Awaited<ReturnType<typeof taskInputs>>;

const NO_NAMES: ReadonlyMap<string, string> = new Map();

const namesOf = (inputs: TaskInputs) => ({
  parties: inputs.participants ? partyNames(inputs.participants) : NO_NAMES,
  assets: inputs.assets ? assetNames(inputs.assets) : NO_NAMES,
});

/**
 * What a task list is made of: the upstream answers as they came (the read cache hands out the same
 * frozen arrays while they are valid), the demonstration transfers created here (the same frozen array
 * until one is created), or null for the context list when it failed; per context in scope its
 * negotiations, then its transfers, each null when that lookup failed; and what its titles name ids by,
 * the participant list and the grouped asset lists (kept, frozen; null when they could not be had).
 */
async function taskInputs(rt: DataspaceRuntime, scope: TaskScope) {
  // names are a courtesy: a list that cannot be had leaves the ids in the titles, never the tasks out
  const [records, participants, assets] = await Promise.all([
    recordInputs(rt, scope),
    orNull(listParticipants(rt)),
    orNull(listAssetGroups(rt)),
  ]);
  return { ...records, participants, assets };
}

async function recordInputs(rt: DataspaceRuntime, scope: TaskScope) {
  // no deadline armed per request: the context list has its own time-out, the lists what is left of it
  const startedAt = Date.now();
  const created = rt.demoRecords ? await rt.demoTransfers.listShared() : [];
  const listed = () => rt.connector.listParticipantContexts();
  const contexts = await liveOrNull(listed, rt.demoRecords, "Failed to list tasks");
  if (!contexts) return { contexts: null, lists: [], created };
  const deadline = remainingDeadline(rt, startedAt);
  const lists = await Promise.all(
    inScopeActive(scope, contexts).flatMap((ctx) => [
      orNull(rt.connector.listNegotiations(ctx["@id"], deadline)),
      orNull(rt.connector.listTransfers(ctx["@id"], deadline)),
    ]),
  );
  return { contexts, lists, created };
}

const inScopeActive = (scope: TaskScope, contexts: readonly ParticipantContext[]) =>
  contexts.filter((c) => (c.state === undefined || c.state === "ACTIVATED") && inScope(scope, c));

function tasksOf(rt: DataspaceRuntime, scope: TaskScope, inputs: TaskInputs): Task[] {
  const names = namesOf(inputs);
  if (!inputs.contexts) return sortTasks(demoTasksOf(rt, scope, new Set(), inputs.created, names));
  const live = inScopeActive(scope, inputs.contexts).flatMap((ctx, i) => [
    ...(inputs.lists[2 * i]?.map((r) => task("negotiation", r, ctx["@id"], names)) ?? []),
    ...(inputs.lists[2 * i + 1]?.map((r) => task("transfer", r, ctx["@id"], names)) ?? []),
  ]);
  const liveIds = new Set(live.map((t) => t.id));
  return sortTasks([...live, ...demoTasksOf(rt, scope, liveIds, inputs.created, names)]);
}

/** what of the caller the list depends on: its scope */
const scopeKey = (scope: TaskScope) =>
  scope.all ? "*" : `${[...scope.dids].sort().join(" ")}|${[...scope.contextIds].sort().join(" ")}`;

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptTasks = /* @__PURE__ */ createKeptByInputs<Task[]>();

/**
 * The caller's tasks, newest first: kept, frozen (read it only), per caller scope and set of its inputs
 * (TaskInputs, the bundled demonstration records; server/http/kept `createKeptByInputs`).
 */
export async function listTasks(rt: DataspaceRuntime, user: SessionUser): Promise<Task[]> {
  const scope = scopeOf(user);
  const inputs = await taskInputs(rt, scope);
  return keptTasks(
    `scope:${scopeKey(scope)}`,
    [
      inputs.contexts,
      rt,
      rt.demoRecords,
      inputs.created,
      inputs.participants,
      inputs.assets,
      ...inputs.lists,
    ],
    () => tasksOf(rt, scope, inputs),
  );
}

const sortTasks = (tasks: Task[]) =>
  tasks.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
