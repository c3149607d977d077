import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { AccessBodyHead, DaysLeft, StateBadge, civil } from "../../components/access-body/ui";
import { requireRole } from "../../session.server";
import { HDAB_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [
  { title: "Information requests · Access body · Health Dataspace Hub" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const irs = await context.services.accessBody.listInformationRequests(user);
  return {
    items: irs
      .map((i) => ({
        ...pick(i, "id applicationId applicationTitle organisation kind questions state openedDate dueDate"),
        ...pick(i, "daysLeft overdue answer"),
      }))
      .sort(
        (a, b) =>
          (a.state === "OPEN" ? 0 : 1) - (b.state === "OPEN" ? 0 : 1) || a.dueDate.localeCompare(b.dueDate),
      ),
  };
}

export default function InformationRequestsView() {
  const { items } = useLoaderData<typeof loader>();
  return (
    <section>
      <AccessBodyHead title="Information requests">
        Questions to applicants. While one is open, the application's decision clock stands still.
      </AccessBodyHead>
      <DataTable
        data-testid="information-requests"
        columns={["Request", "Application", "Sent", "Answer due", "State", "Questions and answer"]}
      >
        {items.map((i) => (
          <tr key={i.id} className={i.overdue ? "ab-row-overdue" : undefined}>
            <td>
              {i.id}
              <div className="muted ab-small">{i.kind}</div>
            </td>
            <td>
              <AppLink to={`/access-body/applications/${i.applicationId}`}>
                {i.applicationTitle ?? i.applicationId}
              </AppLink>
              <div className="muted ab-small">{i.organisation}</div>
            </td>
            <td className="nowrap">{civil(i.openedDate)}</td>
            <td className="nowrap">
              {civil(i.dueDate)}{" "}
              {i.state === "OPEN" ? <DaysLeft daysLeft={i.daysLeft} overdue={i.overdue} /> : null}
            </td>
            <td>
              <StateBadge state={i.state} />
            </td>
            <td>
              <div className="ab-pre ab-small">{i.questions}</div>
              {i.answer ? <div className="ab-answer ab-small">{i.answer.text}</div> : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
