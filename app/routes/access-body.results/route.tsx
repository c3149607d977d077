import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, runAction, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { AccessBodyHead, DaysLeft, Notice, StateBadge, civil } from "../../components/access-body/ui";
import { requireRole } from "../../session.server";
import { HDAB_DECIDER_ROLES, HDAB_ROLES } from "../../lib/access.server";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Results · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const results = await context.services.accessBody.listResults(user);
  return {
    canDecide: user.roles.includes("HDAB_AUTHORITY"),
    results: results
      .map((r) => ({
        ...pick(r, "id title summary organisation"),
        source: r.permitId ?? r.dataRequestId,
        ...pick(r, "state processingCompletedDate publicationDueDate daysLeft overdue check publication"),
      }))
      .sort((a, b) => a.publicationDueDate.localeCompare(b.publicationDueDate)),
  };
}

export async function action({ request, context }: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, f } = await actionForm(request, context, HDAB_DECIDER_ROLES);
  const act = f.intent === "reject" ? "reject" : "release";
  return runAction(
    act,
    () => context.services.accessBody.postResult({ resultId: f.resultId, action: act, note: f.note }, user),
    `Result ${f.resultId} ${act === "release" ? "released" : "rejected"}.`,
  );
}

export default function Results() {
  const { results, canDecide } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <section>
      <AccessBodyHead title="Results">
        Outputs declared by data users, checked before they leave the secure processing environment, published
        within 18 months of the end of processing (Art. 61(4)).
      </AccessBodyHead>
      <Notice result={result} />
      <DataTable
        data-testid="results"
        columns={[
          "Result",
          "Organisation",
          "From",
          "Processing ended",
          "Publication due",
          "State",
          "Output check",
        ]}
      >
        {results.map((r) => (
          <tr key={r.id} id={r.id} className={r.overdue ? "ab-row-overdue" : undefined}>
            <td>
              {r.title}
              <div className="muted ab-small">{r.id}</div>
              <div className="ab-small">{r.summary}</div>
            </td>
            <td>{r.organisation}</td>
            <td>{r.source}</td>
            <td className="nowrap">{civil(r.processingCompletedDate)}</td>
            <td className="nowrap">
              {civil(r.publicationDueDate)}{" "}
              {r.state !== "PUBLISHED" ? <DaysLeft daysLeft={r.daysLeft} overdue={r.overdue} /> : null}
            </td>
            <td>
              <StateBadge state={r.state} />
              {r.publication ? (
                <div className="ab-small">
                  <a href={r.publication.url}>{r.publication.url}</a>
                </div>
              ) : null}
            </td>
            <td>
              {r.check ? <span className="ab-small">{r.check.note}</span> : null}
              {canDecide && r.state === "DECLARED" ? (
                <Form method="post" className="ab-inline">
                  <input type="hidden" name="resultId" value={r.id} />
                  <input
                    name="note"
                    placeholder="Check note"
                    required
                    aria-label={`Check note for ${r.id}`}
                  />
                  <button className="button" name="intent" value="release" disabled={busy}>
                    Release
                  </button>
                  <button className="button danger" name="intent" value="reject" disabled={busy}>
                    Reject
                  </button>
                </Form>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
