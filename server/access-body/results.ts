import type { SessionUser } from "../auth/user";
import { conflict } from "../http/errors";
import { actorOf, assertRole, parseBody } from "./actors";
import { berlinDate } from "./calendar";
import { periodEnd } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import { RESULT } from "./machines";
import type { DataRequestData, PermitData, ResultData } from "./model";
import { declareResultSchema, resultActionSchema } from "./model";
import { PERIODS } from "./periods";
import { step, unknownRecord } from "./step";
import { resultView } from "./views";

/**
 * Results of processing (Art. 61(4)): declared by the data user, checked (released or rejected) by
 * the access body, published by the data user within 18 months of the end of processing.
 */
export function createResults(ctx: AccessBodyContext) {
  const { store, now, ensureReady, nextId, createRecord, get } = ctx;
  const reader = ctx.reader("result", (r: Rec<ResultData>, at) => resultView(r, at));

  async function postResult(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    if (body.resultId !== undefined || body.action !== undefined)
      return { created: false, result: await resultAction(body, user) };
    return { created: true, result: await declareResult(body, user) };
  }

  async function declareResult(body: Record<string, unknown>, user: SessionUser) {
    assertRole(user, "DATA_USER", "declare a result");
    const input = parseBody(body, declareResultSchema, "title", "summary", "processingCompletedDate");
    const source = input.permitId
      ? await get<PermitData>("permit", input.permitId)
      : await get<DataRequestData>("dataRequest", input.dataRequestId);
    // another organisation's permit or data request answers as an unknown id (decision 0094)
    if (source.organisation !== user.organisation) throw unknownRecord(source.kind, source.id);
    if (source.kind === "dataRequest" && source.state !== "ANSWERED")
      // the source's state, not the request, is what is wrong: 409 as for any other event its state refuses
      throw conflict(`${source.id} has not been answered yet`);
    if (source.kind === "permit" && source.state === "REVOKED")
      throw conflict(`${source.id} was revoked; results of its processing cannot be released`);
    const at = now();
    const change = { event: "declare", actor: actorOf(user), at };
    const rec = await store.tx(async (w) =>
      createRecord<ResultData>(w, RESULT, await nextId(w, "RES", at), user.organisation, source.id, change, {
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
      }),
    );
    return resultView(rec, at);
  }

  async function resultAction(body: Record<string, unknown>, user: SessionUser) {
    const input = parseBody(body, resultActionSchema, "resultId", "action");
    const at = now();
    const base = { id: input.resultId, machine: RESULT, user, at };
    let done: Rec<ResultData>;
    if (input.action === "release" || input.action === "reject") {
      const outcome = input.action === "release" ? "RELEASED" : "REJECTED";
      done = await step<ResultData>(store, {
        ...base,
        event: input.action,
        role: { role: "HDAB_AUTHORITY", what: `${input.action} a result` },
        data: (rec) => ({
          ...rec.data,
          check: { outcome, note: input.note, at: at.toISOString(), by: user.username },
        }),
        note: input.note,
      });
    } else if (input.action === "resubmit") {
      done = await step<ResultData>(store, {
        ...base,
        event: "resubmit",
        role: { role: "DATA_USER", what: `${input.action} a result` },
        own: true,
        data: (rec) => ({ ...rec.data, summary: input.summary, check: null }),
      });
    } else {
      done = await step<ResultData>(store, {
        ...base,
        event: "publish",
        role: { role: "DATA_USER", what: `${input.action} a result` },
        own: true,
        data: (rec) => ({
          ...rec.data,
          publication: { url: input.url, at: at.toISOString(), date: berlinDate(at) },
        }),
        note: input.url,
      });
    }
    return resultView(done, at);
  }

  return { listResults: reader.list, getResult: reader.get, postResult };
}
