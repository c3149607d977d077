import { berlinDate, daysBetween } from "./calendar";
import type { clockView } from "./clock";
import type { AccessBodyContext } from "./context";
import type { ApplicationData, DataRequestData, FindingData, ResultData } from "./model";
import type { RecordViews } from "./views";

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
 * The queue is built once per version of the records (store.version() as ensureReady() leaves it:
 * this instance's writes at once, other instances' read from the store's version row on PostgreSQL) and Berlin day (every due date and days-left
 * figure counts in days; nothing else in it depends on the time), and shared by every reader:
 * `generatedAt` is the time of each read.
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
      const items = build(at, today).then(freezeAll);
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
    const days = (due: string | null) => (due ? daysBetween(today, due) : null);
    const open = await openRequestsByApplication();
    for (const r of await store.list<ApplicationData>("application")) {
      const v = await applicationView(r, at, open);
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
    for (const r of await store.list<DataRequestData>("dataRequest")) {
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
    for (const r of await store.list<FindingData>("finding")) {
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
    for (const r of await store.list<ResultData>("result")) {
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
    return items;
  }

  return { workQueue };
}

function freezeAll(items: QueueItem[]): readonly Readonly<QueueItem>[] {
  for (const i of items) {
    if (i.clock) Object.freeze(i.clock);
    Object.freeze(i);
  }
  return Object.freeze(items);
}
