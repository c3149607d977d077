import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useRevalidator, useSubmit } from "@remix-run/react";
import { useState } from "react";
import { apiFailure, isAdmin, listChoices } from "../../lib/dataspace/access.server";
import { knownStates, stateCounts } from "../../components/dataspace/states";
import { KIND_LABEL, StatePipeline } from "../../components/dataspace/StatePipeline";
import {
  DataspaceHead,
  ErrorNotice,
  StateBadge,
  formatStamp,
  formatTime,
  shortId,
} from "../../components/dataspace/ui";
import { Badge } from "../../components/ui/Badge";
import { plural } from "../../components/ui/format";
import { stateLabel } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES, settle } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";
import { optionList } from "../../components/route-kit/options";
import { usePolling } from "../../components/patient-app/usePolling";

/** GET /api/tasks as a page: the organisation's negotiations and transfers (everyone's for connector admins). */

export const meta: MetaFunction = () => [{ title: "Tasks · Dataspace · Health Dataspace Hub" }];

const REFRESH_MS = 4000;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const url = new URL(request.url);
  const kind = url.searchParams.get("kind") ?? "";
  const state = (url.searchParams.get("state") ?? "").toUpperCase();
  const participant = url.searchParams.get("participant") ?? "";
  const [tasks, choices] = await Promise.all([settle(ds.listTasks(user), apiFailure), listChoices(ds)]);
  const all = tasks.ok ? tasks.value : [];
  const error = tasks.ok ? null : tasks.error;
  const names = new Map(choices.participants.map((p) => [p.participantId, p.displayName]));
  const filtered = all.filter(
    (t) =>
      (!kind || t.kind === kind) &&
      (!state || t.state === state) &&
      (!participant || t.participantId === participant),
  );
  return {
    tasks: filtered.map((t) => ({ ...t, participantName: names.get(t.participantId) ?? t.participantId })),
    total: all.length,
    filters: { kind, state, participant },
    facets: {
      states: [
        ...new Set([...knownStates("negotiation"), ...knownStates("transfer"), ...all.map((t) => t.state)]),
      ].filter(Boolean),
      participants: [...new Set(all.map((t) => t.participantId))]
        .map((id) => ({ id, name: names.get(id) ?? id }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    },
    // the summary counts what the list shows
    summary: stateCounts(filtered),
    admin: isAdmin(user),
    error,
    at: Date.now(),
  };
}

export default function Tasks() {
  const { tasks, total, filters, facets, summary, admin, error, at } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const submit = useSubmit();
  const [auto, setAuto] = useState(true);
  usePolling(
    () => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") revalidator.revalidate();
    },
    REFRESH_MS,
    auto,
  );
  const filtered = filters.kind || filters.state || filters.participant;

  return (
    <section className="ds-page" data-testid="tasks-page">
      <DataspaceHead
        title="Tasks"
        aside={
          <div className="ds-refresh">
            <label className="check">
              <input
                type="checkbox"
                checked={auto}
                onChange={(e) => setAuto(e.currentTarget.checked)}
                data-testid="tasks-auto-refresh"
              />
              Refresh every {REFRESH_MS / 1000} s
            </label>
            <button
              type="button"
              className="button ghost small"
              onClick={() => revalidator.revalidate()}
              disabled={revalidator.state !== "idle"}
              data-testid="tasks-refresh"
            >
              {revalidator.state !== "idle" ? "Refreshing…" : "Refresh now"}
            </button>
            <span className="muted small" data-testid="tasks-updated">
              Updated {formatTime(at)}
            </span>
          </div>
        }
      >
        Negotiations and transfers {admin ? "of every participant context" : "of your organisation"}, as the
        connector reports them.
      </DataspaceHead>

      <Form
        method="get"
        className="card filters"
        data-testid="tasks-filters"
        onChange={(e) => submit(e.currentTarget, { replace: true, preventScrollReset: true })}
      >
        <Filter label="Kind">
          <select name="kind" defaultValue={filters.kind} data-testid="tasks-filter-kind">
            <option value="">Negotiations and transfers</option>
            <option value="negotiation">Negotiations</option>
            <option value="transfer">Transfers</option>
          </select>
        </Filter>
        <Filter label="State">
          <select name="state" defaultValue={filters.state} data-testid="tasks-filter-state">
            <option value="">Any state</option>
            {optionList(facets.states, (s) => [s, stateLabel(s)])}
          </select>
        </Filter>
        <Filter label="Participant">
          <select
            name="participant"
            defaultValue={filters.participant}
            data-testid="tasks-filter-participant"
          >
            <option value="">{admin ? "All participants" : "All of my organisation"}</option>
            {optionList(facets.participants, (p) => [p.id, p.name])}
          </select>
        </Filter>
        <div className="filter-actions">
          <noscript>
            <button type="submit" className="button">
              Filter
            </button>
          </noscript>
          {filtered ? (
            <AppLink to="/tasks" className="button ghost" data-testid="tasks-reset">
              Reset
            </AppLink>
          ) : null}
        </div>
      </Form>

      <ErrorNotice error={error} testId="tasks-error" />
      <p className="ds-task-summary" role="status" aria-live="polite" data-testid="tasks-count">
        <span>{filtered ? `${plural(tasks.length, "task")} of ${total}` : plural(total, "task")}</span>
        <Badge tone="info">{summary.running} in progress</Badge>
        <Badge tone="ok">{summary.done} done</Badge>
        <Badge tone={summary.failed ? "danger" : "neutral"}>{summary.failed} terminated</Badge>
      </p>

      {tasks.length === 0 ? (
        <p className="card empty muted">No tasks{filtered ? " match these filters" : ""}.</p>
      ) : (
        <div className="table-wrap card flush">
          <DataTable
            className="data ds-table"
            data-testid="tasks-table"
            columns={["Task", "Kind", "Participant", "State", "Updated"]}
          >
            {tasks.map((t) => {
              const href = `/${t.kind === "negotiation" ? "negotiations" : "transfers"}/${encodeURIComponent(t.id)}${
                admin ? `?participant=${encodeURIComponent(t.participantId)}` : ""
              }`;
              return (
                <tr
                  key={`${t.participantId}/${t.id}`}
                  data-testid="task-row"
                  data-task-id={t.id}
                  data-kind={t.kind}
                  data-state={t.state}
                >
                  <td>
                    <AppLink to={href} data-testid="task-title">
                      {t.title}
                    </AppLink>
                    <div className="muted small">
                      <code title={t.id}>{shortId(t.id)}</code>
                    </div>
                  </td>
                  <td>
                    <Badge tone="neutral">{KIND_LABEL[t.kind]}</Badge>
                  </td>
                  <td className="small">{t.participantName}</td>
                  <td>
                    <div className="ds-state-cell">
                      <StateBadge state={t.state} />
                      <StatePipeline kind={t.kind} state={t.state} compact />
                    </div>
                  </td>
                  <td className="small nowrap">{formatStamp(Date.parse(t.updatedAt))}</td>
                </tr>
              );
            })}
          </DataTable>
        </div>
      )}
    </section>
  );
}
