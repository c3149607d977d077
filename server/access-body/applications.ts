import type { SessionUser } from "../auth/user";
import { actorOf, assertRole, isOverseer, orgDid, parseBody } from "./actors";
import { berlinDate } from "./calendar";
import {
  clockRefused,
  newClock,
  pauseClock,
  periodEnd,
  resumeClock,
  startClock,
  extendClock,
  stopClock,
  type ClockData,
} from "./clock";
import type { AccessBodyContext } from "./context";
import { APPLICATION, transition } from "./machines";
import type { ApplicationData, ApplicationDetail } from "./model";
import { clockEventSchema, completenessSchema, submitApplicationSchema, withdrawSchema } from "./model";
import { PERIODS } from "./periods";
import { assertVisible, decided, moveAs } from "./step";
import type { RecordViews } from "./views";
import { invalidField } from "../http/field-errors";

/**
 * Data access applications (Art. 67–68): submission, withdrawal, the completeness decision (which
 * starts the decision clock or opens a completeness information request) and the clock's own
 * events (extend, pause, resume).
 */
export function createApplications(ctx: AccessBodyContext, views: RecordViews) {
  const { store, now, ensureReady, nextId, createRecord, get, changeApplication, visible } = ctx;
  const { applicationView, applicationDetail, informationRequestView, openRequestsByApplication } = views;

  /** `limit`/`offset`: one page, in submission order (the caller's own organisation's unless they oversee) */
  async function listApplications(
    user: SessionUser,
    filter: { state?: string; limit?: number; offset?: number } = {},
  ) {
    await ensureReady();
    const at = now();
    const own = !isOverseer(user) && user.organisation ? { organisation: user.organisation } : {};
    const recs = visible(
      user,
      await store.list<ApplicationData>("application", {
        ...(filter.state ? { state: filter.state } : {}),
        ...own,
        limit: filter.limit,
        offset: filter.offset,
      }),
    );
    const open = await openRequestsByApplication();
    return Promise.all(recs.map((r) => applicationView(r, at, open)));
  }

  async function getApplication(id: string, user: SessionUser): Promise<ApplicationDetail> {
    await ensureReady();
    const rec = await get<ApplicationData>("application", id);
    assertVisible(user, rec);
    return await applicationDetail(rec, now());
  }

  async function submitApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "DATA_USER", "submit a data access application");
    const input = parseBody(body, submitApplicationSchema, "title", "purpose", "datasets", "summary");
    const titles = await ctx.datasetTitles(input.datasets);
    const at = now();
    const rec = await store.tx(async (w) => {
      const id = await nextId(w, "DAA", at);
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
      const change = { event: "submit", actor: actorOf(user), at };
      return await createRecord<ApplicationData>(w, APPLICATION, id, user.organisation, null, change, data);
    });
    return await applicationDetail(rec, at);
  }

  async function withdrawApplication(
    body: Record<string, unknown>,
    user: SessionUser,
  ): Promise<ApplicationDetail> {
    await ensureReady();
    const input = parseBody(body, withdrawSchema, "applicationId", "reason");
    assertRole(user, "DATA_USER", "withdraw an application");
    const at = now();
    const done = await changeApplication(String(body.applicationId), user, async (w, current) => {
      // an open information request is withdrawn with the application
      await ctx.withdrawOpenRequest(w, current.id, "application withdrawn", user, at);
      return await moveAs(w, user, at, APPLICATION, current, "withdraw", input.reason, {
        ...current.data,
        clock: stopClock(current.data.clock, at),
        decision: decided("WITHDRAWN", input.reason, at, user),
      });
    });
    return await applicationDetail(done, at);
  }

  async function decideCompleteness(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "decide on completeness");
    const input = parseBody(body, completenessSchema, "applicationId", "complete");
    const at = now();
    if (input.complete) {
      const done = await changeApplication(input.applicationId, user, async (w, current) => {
        transition(APPLICATION, current.state, "markComplete");
        // the period runs from the receipt of the complete application (Art. 68(4))
        const clock = startClock(current.data.clock, new Date(current.data.receivedAt));
        const note = input.note ?? `complete; the decision period runs from ${clock.startDate}`;
        return await moveAs(w, user, at, APPLICATION, current, "markComplete", note, {
          ...current.data,
          clock,
          completionDueDate: null,
        });
      });
      return { application: await applicationDetail(done, at), informationRequest: null };
    }
    const result = await changeApplication(input.applicationId, user, async (w, current) => {
      // after the 404 of an unknown application, before the 409 of its state
      if (!input.missing?.length)
        throw invalidField(
          "missing",
          "missing is required when complete is false: list what the applicant has to add",
        );
      transition(APPLICATION, current.state, "markIncomplete");
      const dueDate = periodEnd(berlinDate(at), PERIODS.applicationCompletion.amount, "weeks");
      const note = input.missing!.join("; ");
      const app = await moveAs(w, user, at, APPLICATION, current, "markIncomplete", note, {
        ...current.data,
        completionDueDate: dueDate,
      });
      const questions = `The application is incomplete (${PERIODS.applicationCompletion.article}). Please add:\n${input.missing!.map((m) => `- ${m}`).join("\n")}`;
      const ir = await ctx.openInformationRequestFor(
        w,
        current,
        await nextId(w, "IR", at),
        { kind: "completeness", questions, dueDate },
        user,
        at,
        "completeness",
      );
      return { app, ir };
    });
    return {
      application: await applicationDetail(result.app, at),
      informationRequest: await informationRequestView(result.ir, at),
    };
  }

  async function clockEvent(body: Record<string, unknown>, user: SessionUser): Promise<ApplicationDetail> {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "change the decision clock");
    const input = parseBody(body, clockEventSchema, "applicationId", "event", "reason");
    const at = now();
    const done = await changeApplication(input.applicationId, user, async (w, current) => {
      const clock = current.data.clock;
      let next: ClockData;
      let note = input.reason;
      if (input.event === "extend") {
        if (input.months === undefined)
          throw invalidField("months", "months is required to extend the decision period");
        next = extendClock(clock, at, input.months, input.reason, user.username);
        note = `+${input.months} month(s): ${input.reason}`;
      } else if (input.event === "pause") {
        if (current.state !== "UNDER_ASSESSMENT")
          throw clockRefused(
            clock,
            "pause",
            `The clock can only be paused while the application is under assessment (it is ${current.state})`,
          );
        next = pauseClock(clock, at, input.reason);
      } else {
        const pause = clock.pauses.at(-1);
        if (pause && !pause.to && pause.informationRequestId)
          throw clockRefused(
            clock,
            "resume",
            `The clock stands still until information request ${pause.informationRequestId} is answered or withdrawn`,
          );
        next = resumeClock(clock, at);
      }
      // the application's state does not change; the clock event is its own history entry
      return await w.update(
        { ...current, data: { ...current.data, clock: next } },
        { event: `clock.${input.event}`, fromState: current.state, actor: actorOf(user), at, note },
      );
    });
    return await applicationDetail(done, at);
  }

  return {
    listApplications,
    getApplication,
    submitApplication,
    withdrawApplication,
    decideCompleteness,
    clockEvent,
  };
}
