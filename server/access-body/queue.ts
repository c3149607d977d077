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

export function createWorkQueue(
  ctx: AccessBodyContext,
  views: Pick<RecordViews, "applicationView" | "openRequestsByApplication">,
) {
  const { store, now, ensureReady } = ctx;
  const { applicationView, openRequestsByApplication } = views;

  async function workQueue() {
    await ensureReady();
    const at = now();
    const today = berlinDate(at);
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
    return { generatedAt: at.toISOString(), today, items };
  }

  return { workQueue };
}
