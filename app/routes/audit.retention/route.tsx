import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { parseRetentionInput, RETENTION_MAX_DAYS } from "../../lib/governance/governance.server";
import { Outcome, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDate, formatDateTime } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { AUDIT_ROLES } from "../../lib/access.server";
import { failure, formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import { Invalid, fieldMessage } from "../../components/ui/field-errors";
import { AppLink } from "../../components/ui/app-link";
import { DataTable, num } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Audit retention · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, AUDIT_ROLES);
  const r = context.services.auditRetention;
  return { kinds: await r.list(), lastPurge: await r.lastPurge(), maximumDays: RETENTION_MAX_DAYS };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, AUDIT_ROLES);
  const form = await readForm(request);
  const r = context.services.auditRetention;
  try {
    if (form.get("intent") === "purge") {
      const report = await r.purge(user.username);
      return {
        ok: true,
        message: report.total
          ? `Purged ${report.total} entries past their period (${Object.entries(report.purged)
              .map(([k, n]) => `${k}: ${n}`)
              .join(", ")}); tombstones keep the chain verifiable.`
          : "Nothing is past its retention period: no entry was removed.",
      };
    }
    const { kind, days } = parseRetentionInput({
      kind: form.get("kind"),
      days: String(form.get("days") ?? ""),
    });
    const row = await r.set(kind, days, user.username);
    return { ok: true, message: `${row.kind} entries are now kept ${row.days} days.` };
  } catch (e) {
    return { ...failure(e), kind: String(form.get("kind") ?? ""), fields: formFieldErrorsOf(e) };
  }
}

const years = (days: number) => `${(days / 365.25).toFixed(days % 365 === 0 || days > 400 ? 1 : 2)} years`;

export default function Retention() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="gov">
      <p className="breadcrumb">
        <AppLink to="/audit">Audit trail</AppLink> / Retention
      </p>
      <PageHead
        title="Retention"
        lead="How long each kind of audit entry is kept. A period can be longer than the floor, never shorter: the floor comes from the statute named beside it, or from the hub's own rule where no statute sets one."
      >
        <Form method="post">
          <input type="hidden" name="intent" value="purge" />
          <button type="submit" className="button ghost" disabled={busy}>
            Purge what is past its period
          </button>
        </Form>
      </PageHead>
      <Outcome result={result} />
      <div className="table-wrap card flush">
        <DataTable
          data-testid="retention"
          columns={["Kind", "Kept", "Floor and its basis", num("Entries"), "Oldest", num("Due"), "Change"]}
        >
          {d.kinds.map((k) => (
            <tr key={k.kind} data-testid={`retention-${k.kind}`}>
              <th scope="row">
                {k.kind}
                <div className="small muted">{k.ruleLabel}</div>
              </th>
              <td className="nowrap">
                {k.days} days <span className="small muted">({years(k.days)})</span>
                <div className="small muted">
                  {k.source === "set" ? `set by ${k.setBy}, ${formatDateTime(k.setAt)}` : "the floor"}
                </div>
              </td>
              <td className="small">
                <strong>{k.minimumDays} days</strong>{" "}
                {k.statutory ? <Badge tone="info">statutory</Badge> : <Badge>hub rule</Badge>}
                <div>{k.basis}</div>
              </td>
              <td className="num">
                {k.entries}
                {k.purged ? <div className="small muted">{k.purged} purged</div> : null}
              </td>
              <td className="small nowrap">{k.oldest ? formatDate(k.oldest) : "—"}</td>
              <td className="num">{k.due}</td>
              <td>
                <Form method="post" className="gov-inline">
                  <input type="hidden" name="kind" value={k.kind} />
                  <label className="visually-hidden" htmlFor={`days-${k.kind}`}>
                    Days to keep {k.kind} entries
                  </label>
                  <Invalid
                    message={
                      result && "kind" in result && result.kind === k.kind
                        ? fieldMessage(result, "days")
                        : undefined
                    }
                  >
                    <input
                      id={`days-${k.kind}`}
                      name="days"
                      type="number"
                      defaultValue={k.days}
                      min={1}
                      max={d.maximumDays}
                      step={1}
                      className="gov-days"
                    />
                  </Invalid>
                  <button
                    type="submit"
                    className="button small"
                    disabled={busy}
                    aria-label={`Set the retention of ${k.kind}`}
                  >
                    Set
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
      <p className="small muted">
        The longest period is {d.maximumDays} days (ten years). Floors are counted generously: a year is 365
        days plus one for a leap day. A purge runs at most once a day when the trail is read, or now with the
        button; each removed entry leaves a tombstone with its hashes so the chain still verifies. Last purge:{" "}
        {d.lastPurge ? formatDateTime(d.lastPurge) : "none yet"}.
      </p>
    </section>
  );
}
