import type { AuditLog } from "../audit/log";
import { ORGANISATIONS } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import type { GraphNode, Mutation } from "../graph/model";
import type { GraphStore } from "../graph/store";
import { badRequest, forbidden, notFound } from "../http/errors";
import type { Db } from "../storage/database";
import { addDays, addMonths, berlinDate, daysBetween } from "./calendar";
import {
  clockView,
  extendClock,
  newClock,
  openPause,
  pauseClock,
  periodEnd,
  resumeClock,
  startClock,
  stopClock,
  type ClockData,
} from "./clock";
import {
  APPLICATION,
  CLOCK,
  DATA_REQUEST,
  FINDING,
  INFORMATION_REQUEST,
  PERMIT,
  RESULT,
  allowedEvents,
  illegalTransition,
  transition,
  type Machine,
} from "./machines";
import type {
  ApplicationData,
  ApplicationDetail,
  ApplicationView,
  DataRequestData,
  FindingData,
  InformationRequestData,
  PermitData,
  ResultData,
} from "./model";
import {
  answerInformationRequestSchema,
  clockEventSchema,
  closeFindingSchema,
  completenessSchema,
  decideDataRequestSchema,
  declareResultSchema,
  issuePermitSchema,
  openFindingSchema,
  openInformationRequestSchema,
  refuseApplicationSchema,
  resultActionSchema,
  respondFindingSchema,
  revokePermitSchema,
  submitApplicationSchema,
  submitDataRequestSchema,
  withdrawSchema,
} from "./model";
import { PERIODS, purposeLabel, type PurposeCode } from "./periods";
import { createRecordStore, type Actor, type RecordKind, type RecordStore, type StoredRecord } from "./store";
import { parseOr400 } from "../http/handler";

/**
 * The access body's work: data access applications (Art. 67–68) with their statutory clock, data
 * requests (Art. 69), data permits, information requests, supervision findings and declared results.
 * Every state change goes through a machine of machines.ts and is written by store.tx together
 * with its history entry and its audit entry. HDAB_AUTHORITY decides; DATA_USER submits and answers
 * for their own organisation; CONNECTOR_ADMIN reads everything.
 */

export interface AccessBodyDeps {
  db: Db;
  audit: AuditLog;
  graph: GraphStore;
  /** the clock of the service (tests pass a fixed one) */
  now?: () => Date;
  /** seed demonstration records on first use (default true) */
  seed?: boolean;
}

export const ACCESS_BODY = {
  name: "MedReg DE",
  slug: "medreg",
  did: ORGANISATIONS.find((o) => o.slug === "medreg")?.did ?? "did:web:medreg.de:hdab",
  country: "DE",
  contact: "Data access desk, MedReg DE — access-desk@medreg.example (functional mailbox)",
};

export type Rec<T> = StoredRecord<T>;

const OVERSEERS = ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"] as const;

export function isOverseer(user: SessionUser): boolean {
  return user.roles.some((r) => (OVERSEERS as readonly string[]).includes(r));
}

export function actorOf(user: SessionUser): Actor {
  const order = ["HDAB_AUTHORITY", "DATA_USER", "DATA_HOLDER", "CONNECTOR_ADMIN"] as const;
  return {
    username: user.username,
    role: order.find((r) => user.roles.includes(r)) ?? user.roles[0] ?? "unknown",
  };
}

export const SYSTEM: Actor = { username: "system", role: "system" };

export function orgDid(organisation: string): string | null {
  return ORGANISATIONS.find((o) => o.displayName === organisation)?.did ?? null;
}
export function orgSlug(organisation: string): string | null {
  return ORGANISATIONS.find((o) => o.displayName === organisation)?.slug ?? null;
}

function assertRole(user: SessionUser, role: string, what: string) {
  if (!user.roles.includes(role as never)) throw forbidden(`Only ${role} may ${what}`);
}

function assertOwn(user: SessionUser, rec: { organisation: string; id: string }) {
  if (isOverseer(user)) return;
  if (rec.organisation !== user.organisation) throw forbidden(`${rec.id} belongs to another organisation`);
}

function pickRequired(body: Record<string, unknown>, ...keys: string[]) {
  const missing = keys.filter((k) => body[k] === undefined || body[k] === null || body[k] === "");
  if (missing.length)
    throw badRequest(`${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required`);
}

export function createAccessBodyService(deps: AccessBodyDeps) {
  const store: RecordStore = createRecordStore(deps.db, deps.audit);
  const graph = deps.graph;
  const now = deps.now ?? (() => new Date());
  let ready: Promise<void> | undefined;

  // ---------- helpers ----------

  function nextId(prefix: string, at: Date): string {
    const year = berlinDate(at).slice(0, 4);
    const base = `${prefix}-${year}-`;
    const max = store
      .idsWithPrefix(base)
      .map((id) => Number(id.slice(base.length)))
      .filter((n) => Number.isInteger(n))
      .reduce((a, b) => Math.max(a, b), 0);
    return `${base}${String(max + 1).padStart(4, "0")}`;
  }

  function get<T>(kind: RecordKind, id: string | undefined | null): Rec<T> {
    if (!id) throw badRequest("id is required");
    const rec = store.get<T>(id);
    if (!rec || rec.kind !== kind) throw notFound(`${kindLabel(kind)} ${id} not found`);
    return rec;
  }

  function visible<T>(user: SessionUser, recs: Rec<T>[]): Rec<T>[] {
    return isOverseer(user) ? recs : recs.filter((r) => r.organisation === user.organisation);
  }

  /** list (scoped to the caller's organisation unless they oversee) and get (with history) of one record kind */
  function reader<T, V extends object>(kind: RecordKind, view: (rec: Rec<T>, at: Date) => V) {
    return {
      async list(user: SessionUser, filter: { state?: string } = {}): Promise<V[]> {
        await ensureReady();
        const at = now();
        return visible(user, store.list<T>(kind, filter.state ? { state: filter.state } : {})).map((r) =>
          view(r, at),
        );
      },
      async get(id: string, user: SessionUser) {
        await ensureReady();
        const rec = get<T>(kind, id);
        assertOwn(user, rec);
        return { ...view(rec, now()), history: store.history(rec.id) };
      },
    };
  }

  async function datasetTitles(ids: string[]): Promise<string[]> {
    const titles: string[] = [];
    for (const id of ids) {
      const n = await graph.getNode(id);
      if (!n || n.label !== "HealthDataset")
        throw badRequest(`Unknown dataset: ${id} (use an id of GET /api/catalog)`);
      titles.push(typeof n.properties.title === "string" ? n.properties.title : id);
    }
    return titles;
  }

  /** expires permits whose end date has passed (a system transition, audited like any other) */
  function sweepExpired(at: Date) {
    const today = berlinDate(at);
    for (const p of store.list<PermitData>("permit", { state: "ACTIVE" })) {
      if (p.data.validUntil >= today) continue;
      store.tx((w) => {
        const current = w.get<PermitData>(p.id);
        if (!current || current.state !== "ACTIVE") return;
        const state = transition(PERMIT, "ACTIVE", "expire");
        w.update(
          { ...current, state, data: { ...current.data, expiredAt: at.toISOString() } },
          {
            event: "expire",
            fromState: "ACTIVE",
            actor: SYSTEM,
            note: `valid until ${current.data.validUntil}`,
            at,
          },
        );
      });
    }
  }

  async function ensureReady() {
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
    sweepExpired(now());
  }

  function openInformationRequest(applicationId: string): Rec<InformationRequestData> | undefined {
    return store.list<InformationRequestData>("informationRequest", {
      parentId: applicationId,
      state: "OPEN",
    })[0];
  }

  function applicationView(rec: Rec<ApplicationData>, at: Date): ApplicationView {
    return {
      ...rec.data,
      id: rec.id,
      purposeLabel: purposeLabel(rec.data.purpose),
      state: rec.state,
      organisation: rec.organisation,
      createdAt: rec.createdAt,
      updatedAt: rec.updatedAt,
      clockView: clockView(rec.data.clock, at),
      openInformationRequestId: openInformationRequest(rec.id)?.id ?? null,
      allowedEvents: allowedEvents(APPLICATION, rec.state as never),
    };
  }

  function applicationDetail(rec: Rec<ApplicationData>, at: Date): ApplicationDetail {
    const irs = store.list<InformationRequestData>("informationRequest", { parentId: rec.id });
    const permit = rec.data.permitId ? store.get<PermitData>(rec.data.permitId) : undefined;
    return {
      ...applicationView(rec, at),
      history: store.history(rec.id),
      informationRequests: irs.map((ir) => ({
        ...ir.data,
        id: ir.id,
        state: ir.state,
        history: store.history(ir.id),
      })),
      permit: permit
        ? { ...permit.data, id: permit.id, state: permit.state, history: store.history(permit.id) }
        : null,
    };
  }

  const flat = <T>(r: Rec<T>) => ({
    ...r.data,
    id: r.id,
    state: r.state,
    organisation: r.organisation,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });

  function permitView(r: Rec<PermitData>) {
    return {
      ...flat(r),
      purposeLabel: purposeLabel(r.data.purpose),
      allowedEvents: allowedEvents(PERMIT, r.state as never),
    };
  }
  function dataRequestView(r: Rec<DataRequestData>, at: Date) {
    const open = r.state === "SUBMITTED" || r.state === "APPROVED";
    const daysLeft = open ? daysBetween(berlinDate(at), r.data.dueDate) : null;
    return {
      ...flat(r),
      purposeLabel: purposeLabel(r.data.purpose),
      daysLeft,
      overdue: daysLeft !== null && daysLeft < 0,
      allowedEvents: allowedEvents(DATA_REQUEST, r.state as never),
    };
  }
  function informationRequestView(r: Rec<InformationRequestData>, at: Date) {
    const app = store.get<ApplicationData>(r.data.applicationId);
    const daysLeft = r.state === "OPEN" ? daysBetween(berlinDate(at), r.data.dueDate) : null;
    return {
      ...flat(r),
      applicationTitle: app?.data.title ?? null,
      daysLeft,
      overdue: daysLeft !== null && daysLeft < 0,
      allowedEvents: allowedEvents(INFORMATION_REQUEST, r.state as never),
    };
  }
  function findingView(r: Rec<FindingData>, at: Date) {
    const daysLeft = r.state === "OPEN" ? daysBetween(berlinDate(at), r.data.responseDueDate) : null;
    return {
      ...flat(r),
      daysLeft,
      overdue: daysLeft !== null && daysLeft < 0,
      allowedEvents: allowedEvents(FINDING, r.state as never),
    };
  }
  function resultView(r: Rec<ResultData>, at: Date) {
    const daysLeft = r.state === "PUBLISHED" ? null : daysBetween(berlinDate(at), r.data.publicationDueDate);
    return {
      ...flat(r),
      daysLeft,
      overdue: daysLeft !== null && daysLeft < 0,
      allowedEvents: allowedEvents(RESULT, r.state as never),
    };
  }
  const permits = reader("permit", (r: Rec<PermitData>) => permitView(r));
  const dataRequests = reader("dataRequest", (r: Rec<DataRequestData>, at) => dataRequestView(r, at));
  const findings = reader("finding", (r: Rec<FindingData>, at) => findingView(r, at));
  const results = reader("result", (r: Rec<ResultData>, at) => resultView(r, at));
  const informationRequests = reader("informationRequest", (r: Rec<InformationRequestData>, at) =>
    informationRequestView(r, at),
  );

  /** a transition of one record inside an open transaction */
  function move<T>(
    w: Parameters<Parameters<RecordStore["tx"]>[0]>[0],
    m: Machine,
    rec: Rec<T>,
    event: string,
    data: T,
    actor: Actor,
    at: Date,
    note?: string,
  ): Rec<T> {
    const current = w.get<T>(rec.id);
    if (!current) throw notFound(`${rec.id} not found`);
    const state = transition(m, current.state, event);
    return w.update({ ...current, state, data }, { event, fromState: current.state, actor, at, note });
  }

  // ---------- applications ----------

  async function listApplications(user: SessionUser, filter: { state?: string } = {}) {
    await ensureReady();
    const at = now();
    return visible(
      user,
      store.list<ApplicationData>("application", filter.state ? { state: filter.state } : {}),
    ).map((r) => applicationView(r, at));
  }

  async function getApplication(id: string, user: SessionUser): Promise<ApplicationDetail> {
    await ensureReady();
    const rec = get<ApplicationData>("application", id);
    assertOwn(user, rec);
    return applicationDetail(rec, now());
  }

  async function submitApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "DATA_USER", "submit a data access application");
    pickRequired(body, "title", "purpose", "datasets", "summary");
    const input = parseOr400(submitApplicationSchema, body);
    const titles = await datasetTitles(input.datasets);
    const at = now();
    const rec = store.tx((w) => {
      const id = nextId("DAA", at);
      const data: ApplicationData = {
        title: input.title,
        summary: input.summary,
        purpose: input.purpose,
        datasets: input.datasets,
        datasetTitles: titles,
        organisationDid: user.participantDid ?? orgDid(user.organisation),
        submittedBy: user.username,
        submittedAt: at.toISOString(),
        receivedAt: at.toISOString(),
        receivedDate: berlinDate(at),
        pseudonymised: input.pseudonymised,
        requestedDurationMonths: input.durationMonths,
        clock: newClock(),
        completionDueDate: null,
        decision: null,
        permitId: null,
        approvalNodeId: null,
        seeded: null,
      };
      return w.create<ApplicationData>(
        {
          id,
          kind: "application",
          state: APPLICATION.initial,
          organisation: user.organisation,
          parentId: null,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data,
        },
        { event: "submit", actor: actorOf(user), at },
      );
    });
    return applicationDetail(rec, at);
  }

  async function withdrawApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    pickRequired(body, "applicationId", "reason");
    const input = parseOr400(withdrawSchema, body);
    const rec = get<ApplicationData>("application", String(body.applicationId));
    assertRole(user, "DATA_USER", "withdraw an application");
    assertOwn(user, rec);
    const at = now();
    const done = store.tx((w) => {
      // an open information request is withdrawn with the application
      const ir = openInformationRequest(rec.id);
      if (ir)
        move(
          w,
          INFORMATION_REQUEST,
          ir,
          "withdraw",
          {
            ...ir.data,
            withdrawal: { reason: "application withdrawn", at: at.toISOString(), by: user.username },
          },
          actorOf(user),
          at,
        );
      const current = w.get<ApplicationData>(rec.id)!;
      const clock: ClockData =
        current.data.clock.state === "STOPPED" ? current.data.clock : stopClock(current.data.clock, at);
      return move(
        w,
        APPLICATION,
        current,
        "withdraw",
        {
          ...current.data,
          clock,
          decision: {
            outcome: "WITHDRAWN",
            at: at.toISOString(),
            date: berlinDate(at),
            reasons: input.reason,
            by: user.username,
          },
        },
        actorOf(user),
        at,
        input.reason,
      );
    });
    return applicationDetail(done, at);
  }

  async function decideCompleteness(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "decide on completeness");
    pickRequired(body, "applicationId", "complete");
    const input = parseOr400(completenessSchema, body);
    const rec = get<ApplicationData>("application", input.applicationId);
    const at = now();
    if (input.complete) {
      const done = store.tx((w) => {
        const current = w.get<ApplicationData>(rec.id)!;
        transition(APPLICATION, current.state, "markComplete");
        // the period runs from the receipt of the complete application (Art. 68(4))
        const clock = startClock(current.data.clock, new Date(current.data.receivedAt));
        return move(
          w,
          APPLICATION,
          current,
          "markComplete",
          { ...current.data, clock, completionDueDate: null },
          actorOf(user),
          at,
          input.note ?? `complete; the decision period runs from ${clock.startDate}`,
        );
      });
      return { application: applicationDetail(done, at), informationRequest: null };
    }
    if (!input.missing?.length)
      throw badRequest("missing is required when complete is false: list what the applicant has to add");
    const result = store.tx((w) => {
      const current = w.get<ApplicationData>(rec.id)!;
      transition(APPLICATION, current.state, "markIncomplete");
      const dueDate = periodEnd(berlinDate(at), PERIODS.applicationCompletion.amount, "weeks");
      const app = move(
        w,
        APPLICATION,
        current,
        "markIncomplete",
        { ...current.data, completionDueDate: dueDate },
        actorOf(user),
        at,
        input.missing!.join("; "),
      );
      const ir = w.create<InformationRequestData>(
        {
          id: nextId("IR", at),
          kind: "informationRequest",
          state: INFORMATION_REQUEST.initial,
          organisation: current.organisation,
          parentId: current.id,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
            applicationId: current.id,
            kind: "completeness",
            questions: `The application is incomplete (${PERIODS.applicationCompletion.article}). Please add:\n${input.missing!.map((m) => `- ${m}`).join("\n")}`,
            openedAt: at.toISOString(),
            openedDate: berlinDate(at),
            openedBy: user.username,
            dueDate,
            answer: null,
            withdrawal: null,
          },
        },
        { event: "open", actor: actorOf(user), at, note: "completeness" },
      );
      return { app, ir };
    });
    return {
      application: applicationDetail(result.app, at),
      informationRequest: informationRequestView(result.ir, at),
    };
  }

  async function clockEvent(body: Record<string, unknown>, user: SessionUser): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "change the decision clock");
    pickRequired(body, "applicationId", "event", "reason");
    const input = parseOr400(clockEventSchema, body);
    const rec = get<ApplicationData>("application", input.applicationId);
    const at = now();
    const done = store.tx((w) => {
      const current = w.get<ApplicationData>(rec.id)!;
      const clock = current.data.clock;
      let next: ClockData;
      let note = input.reason;
      if (input.event === "extend") {
        if (input.months === undefined) throw badRequest("months is required to extend the decision period");
        next = extendClock(clock, at, input.months, input.reason, user.username);
        note = `+${input.months} month(s): ${input.reason}`;
      } else if (input.event === "pause") {
        if (current.state !== "UNDER_ASSESSMENT")
          throw illegalTransition(
            CLOCK,
            clock.state,
            "pause",
            `The clock can only be paused while the application is under assessment (it is ${current.state})`,
            ["pause"],
          );
        next = pauseClock(clock, at, input.reason);
      } else {
        const pause = openPause(clock);
        if (pause?.informationRequestId) {
          throw illegalTransition(
            CLOCK,
            clock.state,
            "resume",
            `The clock stands still until information request ${pause.informationRequestId} is answered or withdrawn`,
            ["resume"],
          );
        }
        next = resumeClock(clock, at);
      }
      // the application's state does not change; the clock event is its own history entry
      return w.update(
        { ...current, data: { ...current.data, clock: next } },
        { event: `clock.${input.event}`, fromState: current.state, actor: actorOf(user), at, note },
      );
    });
    return applicationDetail(done, at);
  }

  // ---------- information requests ----------

  async function listInformationRequests(
    user: SessionUser,
    filter: { state?: string; applicationId?: string } = {},
  ) {
    await ensureReady();
    const at = now();
    const recs = store.list<InformationRequestData>("informationRequest", {
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.applicationId ? { parentId: filter.applicationId } : {}),
    });
    return visible(user, recs).map((r) => informationRequestView(r, at));
  }

  async function requestInformation(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "ask an applicant for information");
    pickRequired(body, "applicationId", "questions");
    const input = parseOr400(openInformationRequestSchema, body);
    const rec = get<ApplicationData>("application", input.applicationId);
    const at = now();
    const result = store.tx((w) => {
      const current = w.get<ApplicationData>(rec.id)!;
      transition(APPLICATION, current.state, "requestInformation");
      const id = nextId("IR", at);
      const clock = pauseClock(current.data.clock, at, `information request ${id}`, id);
      const ir = w.create<InformationRequestData>(
        {
          id,
          kind: "informationRequest",
          state: INFORMATION_REQUEST.initial,
          organisation: current.organisation,
          parentId: current.id,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
            applicationId: current.id,
            kind: "assessment",
            questions: input.questions,
            openedAt: at.toISOString(),
            openedDate: berlinDate(at),
            openedBy: user.username,
            dueDate: addDays(berlinDate(at), input.dueInDays),
            answer: null,
            withdrawal: null,
          },
        },
        { event: "open", actor: actorOf(user), at },
      );
      const app = move(
        w,
        APPLICATION,
        current,
        "requestInformation",
        { ...current.data, clock },
        actorOf(user),
        at,
        `${id}; the decision clock is paused`,
      );
      return { app, ir };
    });
    return {
      informationRequest: informationRequestView(result.ir, at),
      application: applicationDetail(result.app, at),
    };
  }

  async function answerInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "answer an information request");
    pickRequired(body, "informationRequestId", "answer");
    const input = parseOr400(answerInformationRequestSchema, body);
    const rec = get<InformationRequestData>("informationRequest", input.informationRequestId);
    assertOwn(user, rec);
    const at = now();
    const result = store.tx((w) => {
      const ir = move(
        w,
        INFORMATION_REQUEST,
        rec,
        "answer",
        {
          ...rec.data,
          answer: { text: input.answer, at: at.toISOString(), date: berlinDate(at), by: user.username },
        },
        actorOf(user),
        at,
      );
      const app = w.get<ApplicationData>(rec.data.applicationId)!;
      let updated: Rec<ApplicationData>;
      if (rec.data.kind === "completeness") {
        // the supplement is a new receipt: the clock will run from it once the application is found complete
        updated = move(
          w,
          APPLICATION,
          app,
          "supplement",
          {
            ...app.data,
            receivedAt: at.toISOString(),
            receivedDate: berlinDate(at),
            completionDueDate: null,
          },
          actorOf(user),
          at,
          `supplemented in ${ir.id}`,
        );
      } else {
        const clock = resumeClock(app.data.clock, at);
        updated = move(
          w,
          APPLICATION,
          app,
          "informationProvided",
          { ...app.data, clock },
          actorOf(user),
          at,
          `${ir.id} answered; the decision clock runs again`,
        );
      }
      return { ir, app: updated };
    });
    return {
      informationRequest: informationRequestView(result.ir, at),
      application: applicationDetail(result.app, at),
    };
  }

  async function withdrawInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "withdraw an information request");
    pickRequired(body, "informationRequestId", "reason");
    const input = parseOr400(withdrawSchema, body);
    const rec = get<InformationRequestData>("informationRequest", String(body.informationRequestId));
    const at = now();
    const result = store.tx((w) => {
      const ir = move(
        w,
        INFORMATION_REQUEST,
        rec,
        "withdraw",
        { ...rec.data, withdrawal: { reason: input.reason, at: at.toISOString(), by: user.username } },
        actorOf(user),
        at,
        input.reason,
      );
      const app = w.get<ApplicationData>(rec.data.applicationId)!;
      let updated = app;
      if (rec.data.kind === "assessment" && app.state === "INFORMATION_REQUESTED") {
        updated = move(
          w,
          APPLICATION,
          app,
          "informationWithdrawn",
          { ...app.data, clock: resumeClock(app.data.clock, at) },
          actorOf(user),
          at,
          `${ir.id} withdrawn; the decision clock runs again`,
        );
      }
      return { ir, app: updated };
    });
    return {
      informationRequest: informationRequestView(result.ir, at),
      application: applicationDetail(result.app, at),
    };
  }

  // ---------- decisions and permits ----------

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
    pickRequired(body, "applicationId", "durationMonths", "conditions", "secureProcessingEnvironment");
    const input = parseOr400(issuePermitSchema, body);
    const rec = get<ApplicationData>("application", input.applicationId);
    transition(APPLICATION, rec.state, "grant"); // fail fast before looking at the graph
    const datasets = input.datasets ?? rec.data.datasets;
    const titles = await datasetTitles(datasets);
    const contracts = await matchingContracts(rec.organisation, datasets);
    const existingApproval = rec.data.approvalNodeId ? await graph.getNode(rec.data.approvalNodeId) : null;
    const medreg = await graph.getNode("participant-medreg");
    const at = now();
    const result = store.tx((w) => {
      const current = w.get<ApplicationData>(rec.id)!;
      transition(APPLICATION, current.state, "grant");
      const id = nextId("MEDREG-DP", at);
      const issuedDate = berlinDate(at);
      const approvalNodeId = existingApproval ? existingApproval.id : `approval-${id.toLowerCase()}`;
      const permit = w.create<PermitData>(
        {
          id,
          kind: "permit",
          state: PERMIT.initial,
          organisation: current.organisation,
          parentId: current.id,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
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
          },
        },
        { event: "issue", actor: actorOf(user), at },
      );
      const app = move(
        w,
        APPLICATION,
        current,
        "grant",
        {
          ...current.data,
          clock: stopClock(current.data.clock, at),
          decision: {
            outcome: "GRANTED",
            at: at.toISOString(),
            date: issuedDate,
            reasons: null,
            by: user.username,
          },
          permitId: id,
          approvalNodeId,
        },
        actorOf(user),
        at,
        `data permit ${id}`,
      );
      return { permit, app };
    });
    // the marketplace learns of the permit: an HDABApproval node approving the matching contracts
    const p = result.permit;
    const approvalProps = {
      permitNumber: p.id,
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
    const mutations: Mutation[] = existingApproval
      ? [{ op: "updateNode", id: existingApproval.id, properties: approvalProps }]
      : [
          {
            op: "createNode",
            node: {
              id: p.data.approvalNodeId!,
              label: "HDABApproval",
              layer: "l1",
              properties: approvalProps,
            },
          },
          ...(medreg
            ? [
                {
                  op: "createEdge" as const,
                  edge: {
                    id: `issued-by-${p.data.approvalNodeId}`,
                    source: p.data.approvalNodeId!,
                    target: medreg.id,
                    type: "ISSUED_BY",
                  },
                },
              ]
            : []),
          ...contracts.map((c) => ({
            op: "createEdge" as const,
            edge: {
              id: `approves-${p.data.approvalNodeId}-${c.id}`,
              source: p.data.approvalNodeId!,
              target: c.id,
              type: "APPROVES",
            },
          })),
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
    return permitView(store.get<PermitData>(p.id)!);
  }

  async function syncGraph(mutations: Mutation[], audit: { action: string; actor: string; target: string }) {
    if (!mutations.length) return;
    try {
      await graph.mutate(mutations, { ...audit, kind: "graph" });
    } catch (e) {
      // the record is authoritative; the compliance summary shows an approval missing from the graph
      console.error(`[access-body] marketplace update for ${audit.target} failed:`, e);
    }
  }

  async function refuseApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "refuse an application");
    pickRequired(body, "applicationId", "reasons");
    const input = parseOr400(refuseApplicationSchema, body);
    const rec = get<ApplicationData>("application", input.applicationId);
    const at = now();
    const done = store.tx((w) => {
      const current = w.get<ApplicationData>(rec.id)!;
      transition(APPLICATION, current.state, "refuse");
      const ir = openInformationRequest(rec.id);
      if (ir)
        move(
          w,
          INFORMATION_REQUEST,
          ir,
          "withdraw",
          {
            ...ir.data,
            withdrawal: { reason: "application refused", at: at.toISOString(), by: user.username },
          },
          actorOf(user),
          at,
        );
      return move(
        w,
        APPLICATION,
        current,
        "refuse",
        {
          ...current.data,
          clock:
            current.data.clock.state === "STOPPED" ? current.data.clock : stopClock(current.data.clock, at),
          completionDueDate: null,
          decision: {
            outcome: "REFUSED",
            at: at.toISOString(),
            date: berlinDate(at),
            reasons: input.reasons,
            by: user.username,
          },
        },
        actorOf(user),
        at,
        input.reasons,
      );
    });
    return applicationDetail(done, at);
  }

  async function decidePermit(body: Record<string, unknown>, user: SessionUser) {
    return body.decision === "refuse"
      ? { kind: "refusal" as const, application: await refuseApplication(body, user) }
      : { kind: "permit" as const, permit: await issuePermit(body, user) };
  }

  async function revokePermit(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "revoke a data permit");
    pickRequired(body, "permitId", "reason");
    const input = parseOr400(revokePermitSchema, body);
    const rec = get<PermitData>("permit", input.permitId);
    const at = now();
    const done = store.tx((w) =>
      move(
        w,
        PERMIT,
        rec,
        "revoke",
        {
          ...rec.data,
          revocation: { at: at.toISOString(), date: berlinDate(at), reason: input.reason, by: user.username },
        },
        actorOf(user),
        at,
        input.reason,
      ),
    );
    // the agreements the permit backs stop being usable: the marketplace contracts are suspended
    const mutations: Mutation[] = [];
    if (done.data.approvalNodeId && (await graph.getNode(done.data.approvalNodeId))) {
      mutations.push({
        op: "updateNode",
        id: done.data.approvalNodeId,
        properties: { status: "REVOKED", revokedDate: done.data.revocation!.date },
      });
    }
    for (const id of done.data.contractIds) {
      if (await graph.getNode(id))
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
    return permitView(done);
  }

  // ---------- data requests (Art. 69) ----------

  async function submitDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "submit a data request");
    pickRequired(body, "title", "question", "purpose", "datasets");
    const input = parseOr400(submitDataRequestSchema, body);
    const titles = await datasetTitles(input.datasets);
    const at = now();
    const rec = store.tx((w) =>
      w.create<DataRequestData>(
        {
          id: nextId("DRQ", at),
          kind: "dataRequest",
          state: DATA_REQUEST.initial,
          organisation: user.organisation,
          parentId: null,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
            title: input.title,
            question: input.question,
            purpose: input.purpose,
            datasets: input.datasets,
            datasetTitles: titles,
            submittedBy: user.username,
            receivedAt: at.toISOString(),
            receivedDate: berlinDate(at),
            dueDate: periodEnd(berlinDate(at), PERIODS.dataRequestAnswer.amount, "months"),
            decision: null,
            answer: null,
            seeded: null,
          },
        },
        { event: "submit", actor: actorOf(user), at },
      ),
    );
    return dataRequestView(rec, at);
  }

  async function withdrawDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "withdraw a data request");
    pickRequired(body, "requestId", "reason");
    const input = parseOr400(withdrawSchema, body);
    const rec = get<DataRequestData>("dataRequest", String(body.requestId));
    assertOwn(user, rec);
    const at = now();
    const done = store.tx((w) =>
      move(
        w,
        DATA_REQUEST,
        rec,
        "withdraw",
        {
          ...rec.data,
          decision: {
            outcome: "WITHDRAWN",
            at: at.toISOString(),
            date: berlinDate(at),
            reasons: input.reason,
            by: user.username,
          },
        },
        actorOf(user),
        at,
        input.reason,
      ),
    );
    return dataRequestView(done, at);
  }

  async function decideDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "decide a data request");
    pickRequired(body, "requestId", "decision");
    const input = parseOr400(decideDataRequestSchema, body);
    const rec = get<DataRequestData>("dataRequest", input.requestId);
    const at = now();
    const date = berlinDate(at);
    const done = store.tx((w) => {
      const current = w.get<DataRequestData>(rec.id)!;
      if (input.decision === "approve") {
        return move(
          w,
          DATA_REQUEST,
          current,
          "approve",
          {
            ...current.data,
            decision: {
              outcome: "APPROVED",
              at: at.toISOString(),
              date,
              reasons: input.reasons ?? null,
              by: user.username,
            },
          },
          actorOf(user),
          at,
          input.reasons,
        );
      }
      if (input.decision === "refuse") {
        if (!input.reasons) throw badRequest("reasons is required to refuse a data request");
        return move(
          w,
          DATA_REQUEST,
          current,
          "refuse",
          {
            ...current.data,
            decision: {
              outcome: "REFUSED",
              at: at.toISOString(),
              date,
              reasons: input.reasons,
              by: user.username,
            },
          },
          actorOf(user),
          at,
          input.reasons,
        );
      }
      if (!input.answer)
        throw badRequest("answer is required: { summary, table } with anonymised statistics only");
      const small = input.answer.table.filter((r) => r.value > 0 && r.value < MIN_CELL);
      if (small.length) {
        throw badRequest(
          `An anonymised statistical answer may not contain counts below ${MIN_CELL}: ${small.map((r) => r.label).join(", ")}`,
        );
      }
      return move(
        w,
        DATA_REQUEST,
        current,
        "answer",
        { ...current.data, answer: { ...input.answer, at: at.toISOString(), date, by: user.username } },
        actorOf(user),
        at,
      );
    });
    return dataRequestView(done, at);
  }

  // ---------- findings ----------

  async function openFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "open a finding");
    pickRequired(body, "organisation", "subjectRole", "title", "description");
    const input = parseOr400(openFindingSchema, body);
    if (input.relatedPermitId) get<PermitData>("permit", input.relatedPermitId);
    const at = now();
    const rec = store.tx((w) =>
      w.create<FindingData>(
        {
          id: nextId("FND", at),
          kind: "finding",
          state: FINDING.initial,
          organisation: input.organisation,
          parentId: input.relatedPermitId ?? null,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
            subjectRole: input.subjectRole,
            title: input.title,
            description: input.description,
            severity: input.severity,
            article: input.article ?? null,
            relatedPermitId: input.relatedPermitId ?? null,
            openedAt: at.toISOString(),
            openedDate: berlinDate(at),
            openedBy: user.username,
            responseDueDate: addDays(berlinDate(at), input.responseDueInDays),
            response: null,
            closure: null,
          },
        },
        { event: "open", actor: actorOf(user), at },
      ),
    );
    return findingView(rec, at);
  }

  async function respondFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    pickRequired(body, "findingId", "response");
    const input = parseOr400(respondFindingSchema, body);
    const rec = get<FindingData>("finding", input.findingId);
    if (rec.organisation !== user.organisation) throw forbidden(`${rec.id} concerns another organisation`);
    if (!user.roles.includes(rec.data.subjectRole))
      throw forbidden(`${rec.id} is addressed to the organisation's ${rec.data.subjectRole}`);
    const at = now();
    const done = store.tx((w) =>
      move(
        w,
        FINDING,
        rec,
        "respond",
        {
          ...rec.data,
          response: { text: input.response, at: at.toISOString(), date: berlinDate(at), by: user.username },
        },
        actorOf(user),
        at,
      ),
    );
    return findingView(done, at);
  }

  async function closeFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "close a finding");
    pickRequired(body, "findingId", "outcome", "note");
    const input = parseOr400(closeFindingSchema, body);
    const rec = get<FindingData>("finding", input.findingId);
    const at = now();
    const done = store.tx((w) =>
      move(
        w,
        FINDING,
        rec,
        "close",
        {
          ...rec.data,
          closure: {
            outcome: input.outcome,
            note: input.note,
            at: at.toISOString(),
            date: berlinDate(at),
            by: user.username,
          },
        },
        actorOf(user),
        at,
        `${input.outcome}: ${input.note}`,
      ),
    );
    return findingView(done, at);
  }

  // ---------- results (Art. 61(4)) ----------

  async function postResult(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    if (body.resultId !== undefined || body.action !== undefined)
      return { created: false, result: await resultAction(body, user) };
    return { created: true, result: await declareResult(body, user) };
  }

  async function declareResult(body: Record<string, unknown>, user: SessionUser) {
    assertRole(user, "DATA_USER", "declare a result");
    pickRequired(body, "title", "summary", "processingCompletedDate");
    const input = parseOr400(declareResultSchema, body);
    const source = input.permitId
      ? get<PermitData>("permit", input.permitId)
      : get<DataRequestData>("dataRequest", input.dataRequestId);
    if (source.organisation !== user.organisation)
      throw forbidden(`${source.id} belongs to another organisation`);
    if (source.kind === "dataRequest" && source.state !== "ANSWERED")
      throw badRequest(`${source.id} has not been answered yet`);
    if (source.kind === "permit" && source.state === "REVOKED")
      throw badRequest(`${source.id} was revoked; results of its processing cannot be released`);
    const at = now();
    const rec = store.tx((w) =>
      w.create<ResultData>(
        {
          id: nextId("RES", at),
          kind: "result",
          state: RESULT.initial,
          organisation: user.organisation,
          parentId: source.id,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
          data: {
            title: input.title,
            summary: input.summary,
            permitId: input.permitId ?? null,
            dataRequestId: input.dataRequestId ?? null,
            processingCompletedDate: input.processingCompletedDate,
            publicationDueDate: periodEnd(
              input.processingCompletedDate,
              PERIODS.resultPublication.amount,
              "months",
            ),
            declaredBy: user.username,
            declaredAt: at.toISOString(),
            check: null,
            publication: null,
          },
        },
        { event: "declare", actor: actorOf(user), at },
      ),
    );
    return resultView(rec, at);
  }

  async function resultAction(body: Record<string, unknown>, user: SessionUser) {
    pickRequired(body, "resultId", "action");
    const input = parseOr400(resultActionSchema, body);
    const rec = get<ResultData>("result", input.resultId);
    const at = now();
    let done: Rec<ResultData>;
    if (input.action === "release" || input.action === "reject") {
      assertRole(user, "HDAB_AUTHORITY", `${input.action} a result`);
      const outcome = input.action === "release" ? "RELEASED" : "REJECTED";
      done = store.tx((w) =>
        move(
          w,
          RESULT,
          rec,
          input.action,
          { ...rec.data, check: { outcome, note: input.note, at: at.toISOString(), by: user.username } },
          actorOf(user),
          at,
          input.note,
        ),
      );
    } else {
      assertRole(user, "DATA_USER", `${input.action} a result`);
      assertOwn(user, rec);
      done =
        input.action === "resubmit"
          ? store.tx((w) =>
              move(
                w,
                RESULT,
                rec,
                "resubmit",
                { ...rec.data, summary: input.summary, check: null },
                actorOf(user),
                at,
              ),
            )
          : store.tx((w) =>
              move(
                w,
                RESULT,
                rec,
                "publish",
                { ...rec.data, publication: { url: input.url, at: at.toISOString(), date: berlinDate(at) } },
                actorOf(user),
                at,
                input.url,
              ),
            );
    }
    return resultView(done, at);
  }

  // ---------- the work queue ----------

  async function workQueue() {
    await ensureReady();
    const at = now();
    const today = berlinDate(at);
    const items: QueueItem[] = [];
    const days = (due: string | null) => (due ? daysBetween(today, due) : null);
    for (const r of store.list<ApplicationData>("application")) {
      const v = applicationView(r, at);
      if (r.state === "RECEIVED") {
        items.push({
          kind: "application",
          id: r.id,
          title: r.data.title,
          organisation: r.organisation,
          state: r.state,
          action: "Check completeness",
          waitingOn: "access body",
          dueDate: null,
          sortDate: r.data.receivedDate,
          daysLeft: null,
          overdue: false,
          paused: false,
          clock: v.clockView,
        });
      } else if (r.state === "INCOMPLETE") {
        const d = days(r.data.completionDueDate);
        items.push({
          kind: "application",
          id: r.id,
          title: r.data.title,
          organisation: r.organisation,
          state: r.state,
          action: "Applicant completes the application",
          waitingOn: "applicant",
          dueDate: r.data.completionDueDate,
          sortDate: r.data.completionDueDate ?? today,
          daysLeft: d,
          overdue: d !== null && d < 0,
          paused: false,
          clock: v.clockView,
        });
      } else if (r.state === "UNDER_ASSESSMENT" || r.state === "INFORMATION_REQUESTED") {
        const c = v.clockView;
        items.push({
          kind: "application",
          id: r.id,
          title: r.data.title,
          organisation: r.organisation,
          state: r.state,
          action:
            r.state === "INFORMATION_REQUESTED"
              ? "Applicant answers the information request (clock paused)"
              : "Decide: grant a permit or refuse",
          waitingOn: r.state === "INFORMATION_REQUESTED" ? "applicant" : "access body",
          dueDate: c.deadlineDate,
          sortDate: c.deadlineDate ?? today,
          daysLeft: c.daysLeft,
          overdue: c.overdue,
          paused: c.state === "PAUSED",
          clock: c,
        });
      }
    }
    for (const r of store.list<DataRequestData>("dataRequest")) {
      if (r.state !== "SUBMITTED" && r.state !== "APPROVED") continue;
      const d = days(r.data.dueDate);
      items.push({
        kind: "dataRequest",
        id: r.id,
        title: r.data.title,
        organisation: r.organisation,
        state: r.state,
        action:
          r.state === "SUBMITTED" ? "Approve or refuse the data request" : "Provide the anonymised answer",
        waitingOn: "access body",
        dueDate: r.data.dueDate,
        sortDate: r.data.dueDate,
        daysLeft: d,
        overdue: d !== null && d < 0,
        paused: false,
        clock: null,
      });
    }
    for (const r of store.list<FindingData>("finding")) {
      if (r.state === "CLOSED") continue;
      const d = r.state === "OPEN" ? days(r.data.responseDueDate) : null;
      items.push({
        kind: "finding",
        id: r.id,
        title: r.data.title,
        organisation: r.organisation,
        state: r.state,
        action: r.state === "OPEN" ? "Organisation responds to the finding" : "Review the response and close",
        waitingOn: r.state === "OPEN" ? "organisation" : "access body",
        dueDate: r.state === "OPEN" ? r.data.responseDueDate : null,
        sortDate: r.state === "OPEN" ? r.data.responseDueDate : (r.data.response?.date ?? today),
        daysLeft: d,
        overdue: d !== null && d < 0,
        paused: false,
        clock: null,
      });
    }
    for (const r of store.list<ResultData>("result")) {
      if (r.state !== "DECLARED") continue;
      const d = days(r.data.publicationDueDate);
      items.push({
        kind: "result",
        id: r.id,
        title: r.data.title,
        organisation: r.organisation,
        state: r.state,
        action: "Check the output before release",
        waitingOn: "access body",
        dueDate: r.data.publicationDueDate,
        sortDate: r.data.publicationDueDate,
        daysLeft: d,
        overdue: d !== null && d < 0,
        paused: false,
        clock: null,
      });
    }
    items.sort((a, b) => a.sortDate.localeCompare(b.sortDate) || a.id.localeCompare(b.id));
    return { generatedAt: at.toISOString(), today, items };
  }

  return {
    store,
    graph,
    now,
    ensureReady,
    applicationView,
    listApplications,
    getApplication,
    submitApplication,
    withdrawApplication,
    decideCompleteness,
    clockEvent,
    listInformationRequests,
    getInformationRequest: informationRequests.get,
    requestInformation,
    answerInformationRequest,
    withdrawInformationRequest,
    issuePermit,
    refuseApplication,
    decidePermit,
    revokePermit,
    listPermits: permits.list,
    getPermit: permits.get,
    listDataRequests: dataRequests.list,
    getDataRequest: dataRequests.get,
    submitDataRequest,
    withdrawDataRequest,
    decideDataRequest,
    listFindings: findings.list,
    getFinding: findings.get,
    openFinding,
    respondFinding,
    closeFinding,
    listResults: results.list,
    getResult: results.get,
    postResult,
    workQueue,
    purposeLabel: (p: PurposeCode) => purposeLabel(p),
  };
}

/** the smallest non-zero count an anonymised statistical answer may contain */
export const MIN_CELL = 10;

export interface QueueItem {
  kind: "application" | "dataRequest" | "finding" | "result";
  id: string;
  title: string;
  organisation: string;
  state: string;
  action: string;
  waitingOn: "access body" | "applicant" | "organisation";
  dueDate: string | null;
  sortDate: string;
  daysLeft: number | null;
  overdue: boolean;
  paused: boolean;
  clock: ReturnType<typeof clockView> | null;
}

function kindLabel(kind: RecordKind): string {
  return {
    application: "Application",
    dataRequest: "Data request",
    permit: "Permit",
    informationRequest: "Information request",
    finding: "Finding",
    result: "Result",
  }[kind];
}

export type AccessBodyService = ReturnType<typeof createAccessBodyService>;
