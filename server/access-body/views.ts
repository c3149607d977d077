import type { z } from "zod";
import { berlinDate, daysBetween } from "./calendar";
import { clockView } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import {
  APPLICATION,
  DATA_REQUEST,
  FINDING,
  INFORMATION_REQUEST,
  PERMIT,
  RESULT,
  allowedEvents,
} from "./machines";
import type {
  ApplicationData,
  ApplicationDetail,
  ApplicationView,
  DataRequestData,
  dataRequestRecord,
  FindingData,
  findingRecord,
  InformationRequestData,
  informationRequestRecord,
  PermitData,
  permitRecord,
  ResultData,
  resultRecord,
} from "./model";
import { purposeLabel } from "./periods";

/**
 * How each record kind is answered: its fields flattened with id, state and organisation, the
 * events it allows next, and for records with a due date the days left and whether it is overdue.
 */

const flat = <T>(r: Rec<T>) => ({
  ...r.data,
  id: r.id,
  state: r.state,
  organisation: r.organisation,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** days to a due date (Berlin) and whether it has passed; null and false when nothing is due */
export function dueIn(dueDate: string | null, at: Date) {
  const daysLeft = dueDate === null ? null : daysBetween(berlinDate(at), dueDate);
  return { daysLeft, overdue: daysLeft !== null && daysLeft < 0 };
}

export function permitView(r: Rec<PermitData>): z.infer<typeof permitRecord> {
  return {
    ...flat(r),
    purposeLabel: purposeLabel(r.data.purpose),
    allowedEvents: allowedEvents(PERMIT, r.state as never),
  };
}

export function dataRequestView(r: Rec<DataRequestData>, at: Date): z.infer<typeof dataRequestRecord> {
  const open = r.state === "SUBMITTED" || r.state === "APPROVED";
  return {
    ...flat(r),
    purposeLabel: purposeLabel(r.data.purpose),
    ...dueIn(open ? r.data.dueDate : null, at),
    allowedEvents: allowedEvents(DATA_REQUEST, r.state as never),
  };
}

export function findingView(r: Rec<FindingData>, at: Date): z.infer<typeof findingRecord> {
  return {
    ...flat(r),
    ...dueIn(r.state === "OPEN" ? r.data.responseDueDate : null, at),
    allowedEvents: allowedEvents(FINDING, r.state as never),
  };
}

export function resultView(r: Rec<ResultData>, at: Date): z.infer<typeof resultRecord> {
  return {
    ...flat(r),
    ...dueIn(r.state === "PUBLISHED" ? null : r.data.publicationDueDate, at),
    allowedEvents: allowedEvents(RESULT, r.state as never),
  };
}

/** the views that read related records (an application's information requests and permit) */
export function createRecordViews(ctx: Pick<AccessBodyContext, "store" | "openInformationRequest">) {
  const { store } = ctx;

  /**
   * The open information request of every application, read once: a list of applications asks the store
   * once instead of once per application (the first open request of each, in the store's order).
   */
  async function openRequestsByApplication(): Promise<Map<string, string>> {
    const byApp = new Map<string, string>();
    for (const ir of await store.list<InformationRequestData>("informationRequest", { state: "OPEN" }))
      if (ir.parentId && !byApp.has(ir.parentId)) byApp.set(ir.parentId, ir.id);
    return byApp;
  }

  async function applicationView(
    rec: Rec<ApplicationData>,
    at: Date,
    openByApplication?: Map<string, string>,
  ): Promise<ApplicationView> {
    const openId = openByApplication
      ? (openByApplication.get(rec.id) ?? null)
      : ((await ctx.openInformationRequest(rec.id))?.id ?? null);
    return {
      ...rec.data,
      id: rec.id,
      purposeLabel: purposeLabel(rec.data.purpose),
      state: rec.state,
      organisation: rec.organisation,
      createdAt: rec.createdAt,
      updatedAt: rec.updatedAt,
      clockView: clockView(rec.data.clock, at),
      openInformationRequestId: openId,
      allowedEvents: allowedEvents(APPLICATION, rec.state as never),
    };
  }

  async function applicationDetail(rec: Rec<ApplicationData>, at: Date): Promise<ApplicationDetail> {
    const irs = await store.list<InformationRequestData>("informationRequest", { parentId: rec.id });
    const permit = rec.data.permitId ? await store.get<PermitData>(rec.data.permitId) : undefined;
    const part = async <T>(r: Rec<T>) => ({
      ...r.data,
      id: r.id,
      state: r.state,
      history: await store.history(r.id),
    });
    const informationRequests = [];
    for (const ir of irs) informationRequests.push(await part(ir));
    return {
      ...(await applicationView(rec, at)),
      history: await store.history(rec.id),
      informationRequests,
      permit: permit ? await part(permit) : null,
    };
  }

  async function informationRequestView(
    r: Rec<InformationRequestData>,
    at: Date,
  ): Promise<z.infer<typeof informationRequestRecord>> {
    const app = await store.get<ApplicationData>(r.data.applicationId);
    return {
      ...flat(r),
      applicationTitle: app?.data.title ?? null,
      ...dueIn(r.state === "OPEN" ? r.data.dueDate : null, at),
      allowedEvents: allowedEvents(INFORMATION_REQUEST, r.state as never),
    };
  }

  return { applicationView, applicationDetail, informationRequestView, openRequestsByApplication };
}

export type RecordViews = ReturnType<typeof createRecordViews>;
