import type { SessionUser } from "../auth/user";
import { actorOf, assertRole, parseBody } from "./actors";
import { berlinDate } from "./calendar";
import { periodEnd } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import { DATA_REQUEST } from "./machines";
import type { DataRequestData } from "./model";
import { decideDataRequestSchema, submitDataRequestSchema, withdrawSchema } from "./model";
import { PERIODS } from "./periods";
import { decided, signed, step } from "./step";
import { dataRequestView } from "./views";
import { invalidField } from "../http/field-errors";

/** the smallest non-zero count an anonymised statistical answer may contain */
export const MIN_CELL = 10;

/** Data requests (Art. 69): an anonymised statistical answer instead of access to the data. */
export function createDataRequests(ctx: AccessBodyContext) {
  const { store, now, ensureReady, nextId, createRecord } = ctx;
  const reader = ctx.reader("dataRequest", (r: Rec<DataRequestData>, at) => dataRequestView(r, at));

  async function submitDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "submit a data request");
    const input = parseBody(body, submitDataRequestSchema, "title", "question", "purpose", "datasets");
    const titles = await ctx.datasetTitles(input.datasets);
    const at = now();
    const change = { event: "submit", actor: actorOf(user), at };
    const rec = await store.tx(async (w) => {
      const id = await nextId(w, "DRQ", at);
      return createRecord<DataRequestData>(w, DATA_REQUEST, id, user.organisation, null, change, {
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
      });
    });
    return dataRequestView(rec, at);
  }

  async function withdrawDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "DATA_USER", "withdraw a data request");
    const input = parseBody(body, withdrawSchema, "requestId", "reason");
    const at = now();
    const done = await step<DataRequestData>(store, {
      id: String(body.requestId),
      machine: DATA_REQUEST,
      event: "withdraw",
      user,
      own: true,
      at,
      data: (rec) => ({ ...rec.data, decision: decided("WITHDRAWN", input.reason, at, user) }),
      note: input.reason,
    });
    return dataRequestView(done, at);
  }

  async function decideDataRequest(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "decide a data request");
    const input = parseBody(body, decideDataRequestSchema, "requestId", "decision");
    const at = now();
    const done = await step<DataRequestData>(store, {
      id: input.requestId,
      machine: DATA_REQUEST,
      event: input.decision,
      user,
      at,
      data: (current) => {
        if (input.decision === "approve") {
          return { ...current.data, decision: decided("APPROVED", input.reasons ?? null, at, user) };
        }
        if (input.decision === "refuse") {
          if (!input.reasons) throw invalidField("reasons", "reasons is required to refuse a data request");
          return { ...current.data, decision: decided("REFUSED", input.reasons, at, user) };
        }
        if (!input.answer)
          throw invalidField(
            "answer",
            "answer is required: { summary, table } with anonymised statistics only",
          );
        const small = input.answer.table.filter((r) => r.value > 0 && r.value < MIN_CELL);
        if (small.length) {
          throw invalidField(
            "answer",
            `An anonymised statistical answer may not contain counts below ${MIN_CELL}: ${small.map((r) => r.label).join(", ")}`,
          );
        }
        return {
          ...current.data,
          answer: { ...input.answer, ...signed(at, user) },
        };
      },
      note: input.decision === "answer" ? undefined : input.reasons,
    });
    return dataRequestView(done, at);
  }

  return {
    listDataRequests: reader.list,
    getDataRequest: reader.get,
    submitDataRequest,
    withdrawDataRequest,
    decideDataRequest,
  };
}
