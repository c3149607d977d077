import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { AccessBodyHead, DaysLeft, StateBadge, civil } from "../../components/access-body/ui";
import { requireRole } from "../../session.server";
import { HDAB_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Work queue · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, HDAB_ROLES);
  const q = await context.services.accessBody.workQueue();
  return {
    today: q.today,
    items: q.items.map((i) => ({
      ...pick(i, "kind id title organisation state action waitingOn dueDate daysLeft overdue paused"),
      extended: (i.clock?.extensionMonths ?? 0) > 0,
    })),
  };
}

const KINDS = {
  application: ["Application", "applications/"],
  dataRequest: ["Data request", "requests#"],
  finding: ["Finding", "findings#"],
  result: ["Result", "results#"],
} as const;
const linkOf = (kind: keyof typeof KINDS, id: string) =>
  `/access-body/${KINDS[kind][1]}${kind === "application" ? encodeURIComponent(id) : id}`;

export default function WorkQueue() {
  const { today, items } = useLoaderData<typeof loader>();
  const overdue = items.filter((i) => i.overdue).length;
  const week = items.filter((i) => i.daysLeft !== null && i.daysLeft >= 0 && i.daysLeft <= 7).length;
  const mine = items.filter((i) => i.waitingOn === "access body").length;
  return (
    <section>
      <AccessBodyHead title="Work queue">
        What is due at the access body, by deadline. Statutory clocks count calendar days in Europe/Berlin;
        today is {civil(today)}.
      </AccessBodyHead>
      <div className="stat-grid ab-stats">
        {(
          [
            ["Open items", items.length],
            ["Waiting on us", mine],
            ["Due within 7 days", week],
            ["Overdue", overdue, "overdue-count"],
          ] as const
        ).map(([label, value, testId]) => (
          <div key={label} className={`card stat${testId && overdue ? " ab-stat-overdue" : ""}`}>
            <span className="stat-label">{label}</span>
            <span className="stat-value" data-testid={testId}>
              {value}
            </span>
          </div>
        ))}
      </div>
      <DataTable
        className="data ab-queue"
        data-testid="work-queue"
        columns={["Deadline", "Days left", "Record", "State", "What is due"]}
      >
        {items.map((i) => (
          <tr key={i.id} className={i.overdue ? "ab-row-overdue" : undefined} data-testid={`queue-${i.id}`}>
            <td className="nowrap">
              {i.dueDate ? civil(i.dueDate) : <span className="muted">no statutory period</span>}
            </td>
            <td className="nowrap">
              <DaysLeft daysLeft={i.daysLeft} overdue={i.overdue} paused={i.paused} />
              {i.extended ? <span className="muted"> · extended</span> : null}
            </td>
            <td>
              <AppLink to={linkOf(i.kind, i.id)}>{i.title}</AppLink>
              <div className="muted ab-small">
                {KINDS[i.kind][0]} {i.id} · {i.organisation}
              </div>
            </td>
            <td>
              <StateBadge state={i.state} />
            </td>
            <td>
              {i.action}
              <div className="muted ab-small">waiting on {i.waitingOn}</div>
            </td>
          </tr>
        ))}
      </DataTable>
      {items.length === 0 ? <p className="muted">Nothing is due.</p> : null}
    </section>
  );
}
