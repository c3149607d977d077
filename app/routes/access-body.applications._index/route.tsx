import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { AccessBodyHead, DaysLeft, StateBadge, civil } from "../../components/access-body/ui";
import { requireRole } from "../../session.server";
import { APPLICATION, HDAB_ROLES, UNDECIDED, UNDECIDED_APPLICATION_STATES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "Applications · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const state = new URL(request.url).searchParams.get("state") ?? "";
  const states: readonly string[] = APPLICATION.states;
  // UNDECIDED: every state still waiting for a decision (the home card "Applications awaiting a decision")
  const apps = (
    await context.services.accessBody.listApplications(user, states.includes(state) ? { state } : {})
  ).filter((a) => state !== UNDECIDED || UNDECIDED_APPLICATION_STATES.includes(a.state));
  return {
    state: states.includes(state) || state === UNDECIDED ? state : "",
    states,
    undecided: UNDECIDED,
    applications: apps
      .map((a) => ({
        ...pick(a, "id title organisation state receivedDate decision"),
        purpose: a.purposeLabel,
        clock: a.clockView,
      }))
      .sort((a, b) => b.receivedDate.localeCompare(a.receivedDate) || b.id.localeCompare(a.id)),
  };
}

export default function Applications() {
  const { state, states, undecided, applications } = useLoaderData<typeof loader>();
  return (
    <section>
      <AccessBodyHead title="Data access applications">
        Every application received (Art. 67), with its decision clock (Art. 68(4)).
      </AccessBodyHead>
      <Form method="get" className="toolbar">
        <label>
          State
          <select name="state" defaultValue={state}>
            <option value="">all</option>
            <option value={undecided}>awaiting a decision</option>
            {optionList(states, (s) => [s, s.replaceAll("_", " ").toLowerCase()])}
          </select>
        </label>
        <button className="button ghost">Filter</button>
      </Form>
      <DataTable
        data-testid="applications"
        columns={["Application", "Organisation", "Purpose", "Received", "State", "Clock"]}
      >
        {applications.map((a) => (
          <tr key={a.id} className={a.clock.overdue ? "ab-row-overdue" : undefined}>
            <td>
              <AppLink to={`/access-body/applications/${a.id}`}>{a.title}</AppLink>
              <div className="muted ab-small">{a.id}</div>
            </td>
            <td>{a.organisation}</td>
            <td>{a.purpose}</td>
            <td className="nowrap">{civil(a.receivedDate)}</td>
            <td>
              <StateBadge state={a.state} />
            </td>
            <td className="nowrap">
              {a.clock.state === "STOPPED" ? (
                <span className={a.clock.metDeadline ? "ab-ok" : "ab-late"}>
                  decided in {a.clock.elapsedDays} d{a.clock.metDeadline ? "" : " (late)"}
                </span>
              ) : a.clock.deadlineDate ? (
                <>
                  {civil(a.clock.deadlineDate)} ·{" "}
                  <DaysLeft
                    daysLeft={a.clock.daysLeft}
                    overdue={a.clock.overdue}
                    paused={a.clock.state === "PAUSED"}
                  />
                </>
              ) : (
                <span className="muted">not started</span>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
