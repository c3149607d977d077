import { deepFrozen } from "../http/kept";
import { berlinDate } from "./calendar";
import type { clockView } from "./clock";
import type { AccessBodyContext, Rec } from "./context";
import type { ApplicationData, DataRequestData, FindingData, ResultData } from "./model";
import { dueIn, type RecordViews } from "./views";

/**
 * The access body's work queue: every open record with the next action, who it waits on and its
 * due date (the decision clock's deadline for applications under assessment), earliest first.
 */

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

export interface WorkQueue {
  generatedAt: string;
  today: string;
  /** shared by every caller of the same version: frozen, read them only */
  items: readonly Readonly<QueueItem>[];
}

/**
 * The queue is built once per version of the records (store.version() as ensureReady() leaves it)
 * and Berlin day (every due date and days-left figure counts in days; nothing else in it depends on
 * the time), and shared by every reader: `generatedAt` is the time of each read.
 */
export function createWorkQueue(
  ctx: AccessBodyContext,
  views: Pick<RecordViews, "applicationView" | "openRequestsByApplication">,
) {
  const { store, now, ensureReady } = ctx;
  const { applicationView, openRequestsByApplication } = views;
  let built: { key: string; items: Promise<readonly Readonly<QueueItem>[]> } | undefined;

  async function workQueue(): Promise<WorkQueue> {
    const version = await ensureReady();
    const at = now();
    const today = berlinDate(at);
    const key = `${version}/${today}`;
    if (built?.key !== key) {
      const items = build(at, today).then(deepFrozen);
      built = { key, items };
      // a failed build is not kept
      items.catch(() => {
        if (built?.items === items) built = undefined;
      });
    }
    return { generatedAt: at.toISOString(), today, items: await built.items };
  }

  async function build(at: Date, today: string): Promise<QueueItem[]> {
    const items: QueueItem[] = [];
    /** a record's item, waiting on someone until its due date */
    const push = (
      r: Rec<{ title: string }>,
      action: string,
      waitingOn: QueueItem["waitingOn"],
      dueDate: string | null,
      sortDate: string,
      more: Partial<QueueItem> = {},
    ) => {
      items.push({
        kind: r.kind as QueueItem["kind"],
        id: r.id,
        title: r.data.title,
        organisation: r.organisation,
        state: r.state,
        action,
        waitingOn,
        dueDate,
        sortDate,
        ...dueIn(dueDate, at),
        paused: false,
        clock: null,
        ...more,
      });
    };
    const open = await openRequestsByApplication();
    for (const r of await store.list<ApplicationData>("application")) {
      const v = await applicationView(r, at, open);
      if (r.state === "RECEIVED") {
        push(r, "Check completeness", "access body", null, r.data.receivedDate, { clock: v.clockView });
      } else if (r.state === "INCOMPLETE") {
        const due = r.data.completionDueDate;
        push(r, "Applicant completes the application", "applicant", due, due ?? today, {
          clock: v.clockView,
        });
      } else if (r.state === "UNDER_ASSESSMENT" || r.state === "INFORMATION_REQUESTED") {
        const c = v.clockView;
        const asked = r.state === "INFORMATION_REQUESTED";
        push(
          r,
          asked
            ? "Applicant answers the information request (clock paused)"
            : "Decide: grant a permit or refuse",
          asked ? "applicant" : "access body",
          c.deadlineDate,
          c.deadlineDate ?? today,
          { daysLeft: c.daysLeft, overdue: c.overdue, paused: c.state === "PAUSED", clock: c },
        );
      }
    }
    for (const r of await store.list<DataRequestData>("dataRequest")) {
      if (r.state !== "SUBMITTED" && r.state !== "APPROVED") continue;
      const action =
        r.state === "SUBMITTED" ? "Approve or refuse the data request" : "Provide the anonymised answer";
      push(r, action, "access body", r.data.dueDate, r.data.dueDate);
    }
    for (const r of await store.list<FindingData>("finding")) {
      if (r.state === "CLOSED") continue;
      const due = r.data.responseDueDate;
      if (r.state === "OPEN") push(r, "Organisation responds to the finding", "organisation", due, due);
      else push(r, "Review the response and close", "access body", null, r.data.response?.date ?? today);
    }
    for (const r of await store.list<ResultData>("result")) {
      if (r.state !== "DECLARED") continue;
      const due = r.data.publicationDueDate;
      push(r, "Check the output before release", "access body", due, due);
    }
    items.sort((a, b) => a.sortDate.localeCompare(b.sortDate) || a.id.localeCompare(b.id));
    return items;
  }

  return { workQueue };
}
