import type { SessionUser } from "../auth/user";
import { forbidden } from "../http/errors";
import { actorOf, assertRole, parseBody } from "./actors";
import { addDays, berlinDate } from "./calendar";
import type { AccessBodyContext, Rec } from "./context";
import { FINDING } from "./machines";
import type { FindingData, PermitData } from "./model";
import { closeFindingSchema, openFindingSchema, respondFindingSchema } from "./model";
import { signed, step, unknownRecord } from "./step";
import { findingView } from "./views";

/** Supervision findings: opened by the access body, answered by the organisation's addressed role, closed. */
export function createFindings(ctx: AccessBodyContext) {
  const { store, now, ensureReady, nextId, createRecord, get } = ctx;
  const reader = ctx.reader("finding", (r: Rec<FindingData>, at) => findingView(r, at));

  async function openFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "open a finding");
    const input = parseBody(body, openFindingSchema, "organisation", "subjectRole", "title", "description");
    if (input.relatedPermitId) await get<PermitData>("permit", input.relatedPermitId);
    const at = now();
    const change = { event: "open", actor: actorOf(user), at };
    const parentId = input.relatedPermitId ?? null;
    const rec = await store.tx(async (w) => {
      const id = await nextId(w, "FND", at);
      return createRecord<FindingData>(w, FINDING, id, input.organisation, parentId, change, {
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
      });
    });
    return findingView(rec, at);
  }

  async function respondFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    const input = parseBody(body, respondFindingSchema, "findingId", "response");
    const at = now();
    const done = await step<FindingData>(store, {
      id: input.findingId,
      machine: FINDING,
      event: "respond",
      user,
      guard: (rec) => {
        // another organisation's finding answers as an unknown id (decision 0094)
        if (rec.organisation !== user.organisation) throw unknownRecord(rec.kind, rec.id);
        if (!user.roles.includes(rec.data.subjectRole))
          throw forbidden(`${rec.id} is addressed to the organisation's ${rec.data.subjectRole}`);
      },
      at,
      data: (rec) => ({
        ...rec.data,
        response: { text: input.response, ...signed(at, user) },
      }),
    });
    return findingView(done, at);
  }

  async function closeFinding(body: Record<string, unknown>, user: SessionUser) {
    await ensureReady();
    assertRole(user, "HDAB_AUTHORITY", "close a finding");
    const input = parseBody(body, closeFindingSchema, "findingId", "outcome", "note");
    const at = now();
    const done = await step<FindingData>(store, {
      id: input.findingId,
      machine: FINDING,
      event: "close",
      user,
      at,
      data: (rec) => ({
        ...rec.data,
        closure: { outcome: input.outcome, note: input.note, ...signed(at, user) },
      }),
      note: `${input.outcome}: ${input.note}`,
    });
    return findingView(done, at);
  }

  return {
    listFindings: reader.list,
    getFinding: reader.get,
    openFinding,
    respondFinding,
    closeFinding,
  };
}
