import type { AuditLog } from "../audit/log";
import type { SessionUser } from "../auth/user";
import type { Mutation, GraphStore } from "../graph";
import type { Relational } from "../storage/relational";
import { SYSTEM, actorOf, isOverseer } from "./actors";
import { berlinDate } from "./calendar";
import { INFORMATION_REQUEST, PERMIT, type Machine } from "./machines";
import type { ApplicationData, InformationRequestData, PermitData } from "./model";
import { assertVisible, loadRecord, move } from "./step";
import {
  createRecordStore,
  type Actor,
  type RecordKind,
  type RecordStore,
  type RecordWriter,
  type StoredRecord,
} from "./store";
import { invalidField } from "../http/field-errors";

/**
 * What every workflow module of the access body shares: the record store, the graph, the clock,
 * the first-use seeding (with the expiry sweep that runs before every request), record numbering,
 * loading and organisation scoping, dataset lookups and the marketplace update after a decision.
 */

export interface AccessBodyDeps {
  rel: Relational;
  audit: AuditLog;
  graph: GraphStore;
  /** the clock of the service (tests pass a fixed one) */
  now?: () => Date;
  /** seed demonstration records on first use (default true) */
  seed?: boolean;
  /**
   * told once a permit's revocation is committed (the container cuts its agreements off at the
   * connector: server/dataspace/cut-off.ts); its failure does not undo the revocation
   */
  onPermitRevoked?: (permitId: string, reason: string, actor: string) => Promise<unknown>;
}

export type Rec<T> = StoredRecord<T>;

export async function createAccessBodyContext(deps: AccessBodyDeps) {
  const store: RecordStore = await createRecordStore(deps.rel, deps.audit);
  const graph = deps.graph;
  const now = deps.now ?? (() => new Date());
  let ready: Promise<void> | undefined;

  /** the next number of a kind in the year of `at`, read in the transaction `w` that writes it */
  async function nextId(
    w: Pick<RecordWriter, "idsWithPrefix" | "lock">,
    prefix: string,
    at: Date,
  ): Promise<string> {
    const year = berlinDate(at).slice(0, 4);
    const base = `${prefix}-${year}-`;
    // several instances numbering at once: the next number is read and taken under one lock per series
    await w.lock(`access-body-id:${base}`);
    const max = (await w.idsWithPrefix(base))
      .map((id) => Number(id.slice(base.length)))
      .filter((n) => Number.isInteger(n))
      .reduce((a, b) => Math.max(a, b), 0);
    return `${base}${String(max + 1).padStart(4, "0")}`;
  }

  /** a new record of the machine's kind, in its first state, written in the open transaction `w` (its fields last) */
  function createRecord<T>(
    w: RecordWriter,
    machine: Machine,
    id: string,
    organisation: string,
    parentId: string | null,
    change: { event: string; actor: Actor; at: Date; note?: string },
    data: T,
  ): Promise<Rec<T>> {
    const at = change.at.toISOString();
    const kind = machine.name as RecordKind;
    return w.create<T>(
      { id, kind, state: machine.initial, organisation, parentId, createdAt: at, updatedAt: at, data },
      change,
    );
  }

  /** an information request to the applicant of `app`, opened at `at` in the open transaction `w` */
  function openInformationRequestFor(
    w: RecordWriter,
    app: Rec<unknown>,
    id: string,
    request: Pick<InformationRequestData, "kind" | "questions" | "dueDate">,
    user: SessionUser,
    at: Date,
    note?: string,
  ): Promise<Rec<InformationRequestData>> {
    const data: InformationRequestData = {
      applicationId: app.id,
      kind: request.kind,
      questions: request.questions,
      openedAt: at.toISOString(),
      openedDate: berlinDate(at),
      openedBy: user.username,
      dueDate: request.dueDate,
      answer: null,
      withdrawal: null,
    };
    const change = { event: "open", actor: actorOf(user), at, note };
    return createRecord(w, INFORMATION_REQUEST, id, app.organisation, app.id, change, data);
  }

  const get = <T>(kind: RecordKind, id: string | undefined | null) => loadRecord<T>(store, kind, id);

  /** `fn` on application `id` as read again in one transaction (404 when unknown or not visible to `user`) */
  async function changeApplication<R>(
    id: string,
    user: SessionUser,
    fn: (w: RecordWriter, app: Rec<ApplicationData>) => Promise<R>,
  ): Promise<R> {
    assertVisible(user, await get<ApplicationData>("application", id));
    return store.tx(async (w) => fn(w, (await w.get<ApplicationData>(id))!));
  }

  function visible<T>(user: SessionUser, recs: Rec<T>[]): Rec<T>[] {
    return isOverseer(user) ? recs : recs.filter((r) => r.organisation === user.organisation);
  }

  /**
   * list (scoped to the caller's organisation unless they oversee; `applicationId`: the records it is
   * the parent of, an application's information requests) and get (with history) of one record kind
   */
  function reader<T, V extends object>(kind: RecordKind, view: (rec: Rec<T>, at: Date) => V | Promise<V>) {
    return {
      async list(user: SessionUser, filter: { state?: string; applicationId?: string } = {}): Promise<V[]> {
        await ensureReady();
        const at = now();
        const { state, applicationId } = filter;
        const recs = visible(
          user,
          await store.list<T>(kind, { state: state || undefined, parentId: applicationId || undefined }),
        );
        return Promise.all(recs.map((r) => view(r, at)));
      },
      async get(id: string, user: SessionUser) {
        await ensureReady();
        const rec = await get<T>(kind, id);
        assertVisible(user, rec);
        return { ...(await view(rec, now())), history: await store.history(rec.id) };
      },
    };
  }

  async function datasetTitles(ids: string[]): Promise<string[]> {
    const titles: string[] = [];
    for (const id of ids) {
      const n = await graph.getNode(id);
      if (!n || n.label !== "HealthDataset")
        throw invalidField("datasets", `Unknown dataset: ${id} (use an id of GET /api/catalog)`);
      titles.push(typeof n.properties.title === "string" ? n.properties.title : id);
    }
    return titles;
  }

  /** expires permits whose end date has passed (a system transition, audited like any other) */
  async function sweepExpired(at: Date) {
    const today = berlinDate(at);
    for (const p of await store.list<PermitData>("permit", { state: "ACTIVE" })) {
      if (p.data.validUntil >= today) continue;
      await store.tx(async (w) => {
        const current = await w.get<PermitData>(p.id);
        if (current?.state !== "ACTIVE") return;
        const data = { ...current.data, expiredAt: at.toISOString() };
        await move(w, PERMIT, current, "expire", data, SYSTEM, at, `valid until ${current.data.validUntil}`);
      });
    }
  }

  // the sweep finds nothing new until the records change or the Berlin day does
  let sweptFor: string | undefined;

  /** seeds once, sweeps expired permits once per version and Berlin day; returns the records' version after it */
  async function ensureReady(): Promise<string> {
    if (deps.seed !== false) {
      if (!ready) {
        ready = import("./seed")
          .then((m) => m.seedIfEmpty({ store, graph, now }))
          .catch((e) => {
            ready = undefined;
            throw e;
          });
      }
      await ready;
    }
    const at = now();
    const day = berlinDate(at);
    const version = await store.version();
    if (sweptFor === `${version}/${day}`) return version;
    await sweepExpired(at);
    // what the sweep wrote is part of the version it has swept for
    const after = await store.version();
    sweptFor = `${after}/${day}`;
    return after;
  }

  /** the open information request of an application (read in `q`, the writer of an open transaction, when given) */
  async function openInformationRequest(
    applicationId: string,
    q: Pick<RecordStore, "list"> = store,
  ): Promise<Rec<InformationRequestData> | undefined> {
    const open = await q.list<InformationRequestData>("informationRequest", {
      parentId: applicationId,
      state: "OPEN",
    });
    return open[0];
  }

  /** withdraws the open information request of an application, if any, with its application (in `w`) */
  async function withdrawOpenRequest(
    w: RecordWriter,
    applicationId: string,
    reason: string,
    user: SessionUser,
    at: Date,
  ) {
    const ir = await openInformationRequest(applicationId, w);
    if (!ir) return;
    const withdrawal = { reason, at: at.toISOString(), by: user.username };
    await move(w, INFORMATION_REQUEST, ir, "withdraw", { ...ir.data, withdrawal }, actorOf(user), at);
  }

  /** the marketplace follows a decision; the record stays authoritative when the graph write fails */
  async function syncGraph(mutations: Mutation[], audit: { action: string; actor: string; target: string }) {
    if (!mutations.length) return;
    try {
      await graph.mutate(mutations, { ...audit, kind: "graph" });
    } catch (e) {
      // the record is authoritative; the compliance summary shows an approval missing from the graph
      console.error(`[access-body] marketplace update for ${audit.target} failed:`, e);
    }
  }

  return {
    store,
    graph,
    now,
    ensureReady,
    nextId,
    createRecord,
    openInformationRequestFor,
    get,
    changeApplication,
    visible,
    reader,
    datasetTitles,
    openInformationRequest,
    withdrawOpenRequest,
    syncGraph,
    onPermitRevoked: deps.onPermitRevoked,
  };
}

export type AccessBodyContext = Awaited<ReturnType<typeof createAccessBodyContext>>;
