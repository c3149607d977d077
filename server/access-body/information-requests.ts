import type { SessionUser } from "../auth/user";
import { assertRole, parseBody } from "./actors";
import { addDays, berlinDate } from "./calendar";
import { pauseClock, resumeClock } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import { APPLICATION, INFORMATION_REQUEST, transition } from "./machines";
import type { ApplicationData, InformationRequestData } from "./model";
import { answerInformationRequestSchema, openInformationRequestSchema, withdrawSchema } from "./model";
import { assertVisible, moveAs, signed } from "./step";
import type { RecordViews } from "./views";

/**
 * Information requests to an applicant: during assessment they pause the decision clock until
 * answered or withdrawn; the completeness request (opened by applications.ts) is answered by a
 * supplement, which is a new receipt of the application.
 */
export function createInformationRequests(ctx: AccessBodyContext, views: RecordViews) {
  const { store, now, ensureReady, nextId, get } = ctx;
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

  async function requestInformation(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "ask an applicant for information");
    const input = parseBody(body, openInformationRequestSchema, "applicationId", "questions");
    const at = now();
    const result = await ctx.changeApplication(input.applicationId, user, async (w, current) => {
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
      const note = `${id}; the decision clock is paused`;
      const app = await moveAs(w, user, at, APPLICATION, current, "requestInformation", note, {
        ...current.data,
        clock,
      });
      return { app, ir };
    });
    return withApplication(result, at);
  }

  async function answerInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "answer an information request");
    const input = parseBody(body, answerInformationRequestSchema, "informationRequestId", "answer");
    const rec = await get<InformationRequestData>("informationRequest", input.informationRequestId);
    assertVisible(user, rec);
    const at = now();
    const result = await store.tx(async (w) => {
      const ir = await moveAs(w, user, at, INFORMATION_REQUEST, rec, "answer", undefined, {
        ...rec.data,
        answer: { text: input.answer, ...signed(at, user) },
      });
      const app = (await w.get<ApplicationData>(rec.data.applicationId))!;
      let updated: Rec<ApplicationData>;
      if (rec.data.kind === "completeness") {
        // the supplement is a new receipt: the clock will run from it once the application is found complete
        updated = await moveAs(w, user, at, APPLICATION, app, "supplement", `supplemented in ${ir.id}`, {
          ...app.data,
          receivedAt: at.toISOString(),
          receivedDate: berlinDate(at),
          completionDueDate: null,
        });
      } else {
        const note = `${ir.id} answered; the decision clock runs again`;
        updated = await moveAs(w, user, at, APPLICATION, app, "informationProvided", note, {
          ...app.data,
          clock: resumeClock(app.data.clock, at),
        });
      }
      return { ir, app: updated };
    });
    return withApplication(result, at);
  }

  async function withdrawInformationRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "withdraw an information request");
    const input = parseBody(body, withdrawSchema, "informationRequestId", "reason");
    const rec = await get<InformationRequestData>("informationRequest", String(body.informationRequestId));
    const at = now();
    const result = await store.tx(async (w) => {
      const ir = await moveAs(w, user, at, INFORMATION_REQUEST, rec, "withdraw", input.reason, {
        ...rec.data,
        withdrawal: { reason: input.reason, at: at.toISOString(), by: user.username },
      });
      const app = (await w.get<ApplicationData>(rec.data.applicationId))!;
      let updated = app;
      if (rec.data.kind === "assessment" && app.state === "INFORMATION_REQUESTED") {
        const note = `${ir.id} withdrawn; the decision clock runs again`;
        updated = await moveAs(w, user, at, APPLICATION, app, "informationWithdrawn", note, {
          ...app.data,
          clock: resumeClock(app.data.clock, at),
        });
      }
      return { ir, app: updated };
    });
    return withApplication(result, at);
  }

  return {
    listInformationRequests: reader.list,
    getInformationRequest: reader.get,
    requestInformation,
    answerInformationRequest,
    withdrawInformationRequest,
  };
}
