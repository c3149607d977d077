import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import {
  apiFailure,
  EVERY_PARTICIPANT,
  isAdmin,
  loadActing,
  negotiationsAcross,
} from "../../lib/dataspace/access.server";
import {
  assetBook,
  nameBook,
  newestFirst,
  toNegotiationView,
  type NegotiationView,
} from "../../lib/dataspace/records.server";
import { knownStates } from "../../components/dataspace/states";
import { StatePipeline } from "../../components/dataspace/StatePipeline";
import {
  DataspaceHead,
  DemoBadge,
  ErrorNotice,
  ParticipantPicker,
  StateBadge,
  formatStamp,
  participantQuery,
  shortId,
} from "../../components/dataspace/ui";
import { plural } from "../../components/ui/format";
import { AppLink } from "../../components/ui/app-link";
import { stateLabel } from "../../components/ui/labels";
import { DataTable } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";
import { optionList } from "../../components/route-kit/options";

/**
 * The participant's contract negotiations (GET /api/negotiations), newest first, with their state
 * pipelines. The operator may also choose every participant (`?participant=all`): each participant's
 * connector's negotiations, with the participant that holds them (server/dataspace/across.ts, which
 * the operator's home card "Contracts across the dataspace" counts).
 */

export const meta: MetaFunction = () => [{ title: "Negotiations · Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, ds, participants, acting } = await loadActing(request, context);
  const url = new URL(request.url);
  const stateFilter = (url.searchParams.get("state") ?? "").toUpperCase();
  const across = isAdmin(user) && url.searchParams.get("participant") === EVERY_PARTICIPANT;
  let all: HeldView[] = [];
  let error: { error: string; detail: string | null } | null = null;
  if (across || acting.participantId) {
    try {
      const book = nameBook(participants);
      const [held, assets] = await Promise.all([
        across
          ? negotiationsAcross(ds)
          : ds
              .listNegotiations(acting.participantId!)
              .then((list) =>
                list.map((negotiation) => ({ participantId: acting.participantId!, negotiation })),
              ),
        assetBook(ds),
      ]);
      all = newestFirst(
        held.map((h) => ({
          ...toNegotiationView(h.negotiation, book, assets),
          heldBy: h.participantId,
          heldByName: book.get(h.participantId) ?? h.participantId,
        })),
      );
    } catch (e) {
      error = apiFailure(e);
    }
  }
  const negotiations = stateFilter ? all.filter((n) => n.state === stateFilter) : all;
  const states = [...new Set([...knownStates("negotiation"), ...all.map((n) => n.state)])].filter(Boolean);
  return {
    acting,
    across: across ? EVERY_PARTICIPANT : null,
    negotiations,
    total: all.length,
    states,
    stateFilter,
    error,
  };
}

/** a negotiation and the participant whose connector holds it */
type HeldView = NegotiationView & { heldBy: string; heldByName: string };

export default function Negotiations() {
  const { acting, across, negotiations, total, states, stateFilter, error } = useLoaderData<typeof loader>();
  const q = across ? "" : participantQuery(acting);
  return (
    <section className="ds-page" data-testid="negotiations-page">
      <DataspaceHead
        title="Negotiations"
        aside={
          <AppLink to={`/negotiate${q}`} className="button" data-testid="negotiations-new">
            New negotiation
          </AppLink>
        }
      >
        {across
          ? "Contract negotiations of every participant's connector, as consumer and as provider."
          : "Contract negotiations of your connector, as consumer and as provider."}
      </DataspaceHead>
      <div className="toolbar">
        <ParticipantPicker
          acting={acting}
          keep={{ state: stateFilter }}
          every={across !== null ? { value: across, chosen: true } : { value: "all", chosen: false }}
        />
        <Form method="get" className="ds-inline" data-testid="negotiations-filter">
          {acting.canChoose && (across ?? acting.participantId) ? (
            <input type="hidden" name="participant" value={across ?? acting.participantId ?? ""} />
          ) : null}
          <Filter label="State">
            <select
              name="state"
              defaultValue={stateFilter}
              onChange={(e) => e.currentTarget.form?.requestSubmit()}
              data-testid="negotiations-state-filter"
            >
              <option value="">Any state</option>
              {optionList(states, (s) => [s, stateLabel(s)])}
            </select>
          </Filter>
          <noscript>
            <button type="submit" className="button small">
              Filter
            </button>
          </noscript>
        </Form>
      </div>
      {acting.reason ? <p className="notice">{acting.reason}</p> : null}
      <ErrorNotice error={error} testId="negotiations-error" />
      <p className="muted" data-testid="negotiations-count">
        {stateFilter
          ? `${plural(negotiations.length, "negotiation")} ${stateLabel(stateFilter).toLowerCase()} of ${total}`
          : plural(total, "negotiation")}
      </p>
      {negotiations.length === 0 ? (
        <p className="muted card empty">
          No negotiations{stateFilter ? ` ${stateLabel(stateFilter).toLowerCase()}` : ""}.{" "}
          <AppLink to={`/negotiate${q}`}>Start one from a provider&apos;s catalogue.</AppLink>
        </p>
      ) : (
        <div className="table-wrap card flush">
          <DataTable
            className="data ds-table"
            data-testid="negotiations-table"
            columns={[
              "Negotiation",
              across ? "Held by" : null,
              "Asset",
              "Counter-party",
              "State",
              "Agreement",
              "Updated",
            ]}
          >
            {negotiations.map((n) => (
              <tr
                key={`${n.heldBy} ${n.id}`}
                data-testid="negotiation-row"
                data-negotiation-id={n.id}
                data-state={n.state}
              >
                <td>
                  <AppLink
                    to={`/negotiations/${encodeURIComponent(n.id)}${across ? participantQuery({ canChoose: true, participantId: n.heldBy }) : q}`}
                    data-testid="negotiation-title"
                  >
                    {n.title}
                  </AppLink>
                  <div className="muted small">
                    {n.type === "PROVIDER" ? "as provider" : "as consumer"} ·{" "}
                    <code title={n.id}>{shortId(n.id)}</code>
                  </div>
                  <DemoBadge of={n} />
                </td>
                {across ? <td data-testid="negotiation-held-by">{n.heldByName}</td> : null}
                <td>
                  {n.assetName || "—"}
                  {n.assetName !== n.assetId ? (
                    <div className="muted small">
                      <code>{n.assetId}</code>
                    </div>
                  ) : null}
                </td>
                <td>{n.counterPartyName}</td>
                <td>
                  <div className="ds-state-cell">
                    <StateBadge state={n.state} />
                    <StatePipeline kind="negotiation" state={n.state} compact />
                  </div>
                  {n.errorDetail ? <p className="small ds-error-line">{n.errorDetail}</p> : null}
                </td>
                <td className="small">
                  {n.contractId ? (
                    <code className="wrap" title={n.contractId}>
                      {shortId(n.contractId)}
                    </code>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="small nowrap">{formatStamp(n.stateTimestamp ?? n.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </section>
  );
}
