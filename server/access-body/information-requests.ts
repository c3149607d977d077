import type { SessionUser } from "../auth/user";
import { parseOr400 } from "../http/handler";
import { actorOf, assertRole, pickRequired } from "./actors";
import { addDays, berlinDate } from "./calendar";
import { pauseClock, resumeClock } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import { APPLICATION, INFORMATION_REQUEST, transition } from "./machines";
import type { ApplicationData, InformationRequestData } from "./model";
import { answerInformationRequestSchema, openInformationRequestSchema, withdrawSchema } from "./model";
import { assertVisible, move, signed } from "./step";
import type { RecordViews } from "./views";

/**
 * Information requests to an applicant: during assessment they pause the decision clock until
 * answered or withdrawn; the completeness request (opened by applications.ts) is answered by a
 * supplement, which is a new receipt of the application.
 */
export function createInformationRequests(ctx: AccessBodyContext, views: RecordViews) {
  const { store, now, ensureReady, nextId, get, visible } = ctx;
  const { applicationDetail, informationRequestView } = views;
  const reader = ctx.reader("informationRequest", (r: Rec<InformationRequestData>, at) =>
    informationRequestView(r, at),
  );

  /** an information request with its application, as the writes answer */
  async function withApplication(
    r: { ir: Rec<InformationRequestData>; app: Rec<ApplicationData> },
    at: Date,
  ) {
    return {
      informationRequest: await informationRequestView(r.ir, at),
      application: await applicationDetail(r.app, at),
    };
  }

  async function listInformationRequests(
    user: SessionUser,
    filter: { state?: string; applicationId?: string } = {},
  ) {
    await ensureReady();
    const at = now();
    const recs = await store.list<InformationRequestData>("informationRequest", {
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.applicationId ? { parentId: filter.applicationId } : {}),
    });
    return Promise.all(visible(user, recs).map((r) => informationRequestView(r, at)));
  }

  async function requestInformation(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "ask an applicant for information");
    pickRequired(body, "applicationId", "questions");
    const input = parseOr400(openInformationRequestSchema, body);
    const rec = await get<ApplicationData>("application", input.applicationId);
    const at = now();
    const result = await store.tx(async (w) => {
      const current = (await w.get<ApplicationData>(rec.id))!;
      transition(APPLICATION, current.state, "requestInformation");
      const id = await nextId(w, "IR", at);
      const clock = pauseClock(current.data.clock, at, `information request ${id}`, id);
      const dueDate = addDays(berlinDate(at), input.dueInDays);
      const ir = await ctx.openInformationRequestFor(
        w,
        current,
        id,
        { kind: "assessment", questions: input.questions, dueDate },
        user,
        at,
      );
      const app = await move(
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
    return withApplication(result, at);
  }

  async function answerInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "answer an information request");
    pickRequired(body, "informationRequestId", "answer");
    const input = parseOr400(answerInformationRequestSchema, body);
    const rec = await get<InformationRequestData>("informationRequest", input.informationRequestId);
    assertVisible(user, rec);
    const at = now();
    const result = await store.tx(async (w) => {
      const ir = await move(
        w,
        INFORMATION_REQUEST,
        rec,
        "answer",
        {
          ...rec.data,
          answer: { text: input.answer, ...signed(at, user) },
        },
        actorOf(user),
        at,
      );
      const app = (await w.get<ApplicationData>(rec.data.applicationId))!;
      let updated: Rec<ApplicationData>;
      if (rec.data.kind === "completeness") {
        // the supplement is a new receipt: the clock will run from it once the application is found complete
        updated = await move(
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
        updated = await move(
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
    return withApplication(result, at);
  }

  async function withdrawInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "withdraw an information request");
    pickRequired(body, "informationRequestId", "reason");
    const input = parseOr400(withdrawSchema, body);
    const rec = await get<InformationRequestData>("informationRequest", String(body.informationRequestId));
    const at = now();
    const result = await store.tx(async (w) => {
      const ir = await move(
        w,
        INFORMATION_REQUEST,
        rec,
        "withdraw",
        { ...rec.data, withdrawal: { reason: input.reason, at: at.toISOString(), by: user.username } },
        actorOf(user),
        at,
        input.reason,
      );
      const app = (await w.get<ApplicationData>(rec.data.applicationId))!;
      let updated = app;
      if (rec.data.kind === "assessment" && app.state === "INFORMATION_REQUESTED") {
        updated = await move(
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
    return withApplication(result, at);
  }

  return {
    listInformationRequests,
    getInformationRequest: reader.get,
    requestInformation,
    answerInformationRequest,
    withdrawInformationRequest,
  };
}
