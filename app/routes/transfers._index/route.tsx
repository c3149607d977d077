import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actingParticipant, apiFailure, loadActing, formText } from "../../lib/dataspace/access.server";
import {
  assetBook,
  nameBook,
  newestFirst,
  toNegotiationView,
  toTransferView,
  type NegotiationView,
  type TransferView,
} from "../../lib/dataspace/records.server";
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
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";
import { Invalid, fieldMessage, useFocusFirstInvalid } from "../../components/ui/field-errors";
import { formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import type { FormFieldError } from "../../types";
import { useRef } from "react";
import { AppLink } from "../../components/ui/app-link";
import { stateLabel, transferTypeLabel } from "../../components/ui/labels";
import { DataTable } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";

/**
 * Transfers: the participant's transfer processes with their state pipelines, and a transfer to
 * start under one of its contract agreements (a FINALIZED negotiation) — POST /api/transfers.
 */

export const meta: MetaFunction = () => [{ title: "Transfers · Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ds, participants, acting } = await loadActing(request, context);
  const url = new URL(request.url);
  const book = nameBook(participants);
  const assets = await assetBook(ds);
  let transfers: TransferView[] = [];
  let agreements: NegotiationView[] = [];
  let error: { error: string; detail: string | null } | null = null;
  if (acting.participantId) {
    const [t, n] = await Promise.allSettled([
      ds.listTransfers(acting.participantId),
      ds.listNegotiations(acting.participantId),
    ]);
    if (t.status === "fulfilled")
      transfers = newestFirst(t.value.map((r) => toTransferView(r, book, assets)));
    else error = apiFailure(t.reason);
    if (n.status === "fulfilled") {
      agreements = newestFirst(
        n.value
          .map((r) => toNegotiationView(r, book, assets))
          .filter((x) => x.state === "FINALIZED" && x.contractId && x.type !== "PROVIDER"),
      );
    } else error ??= apiFailure(n.reason);
  }
  return { acting, transfers, agreements, error, preselect: url.searchParams.get("negotiation") ?? "" };
}

type ActionResult = { error: string; detail: string | null; fields: FormFieldError[] };

/** an error about the chosen agreement: the form's one field names it */
const aboutAgreement = (error: string, detail: string | null = null): ActionResult => ({
  error,
  detail,
  fields: [{ field: "negotiationId", message: error }],
});

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionResult | Response> {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const field = formText(await readForm(request));
  const acting = await actingParticipant(ds, user, field("participant") || null, "DATA_USER");
  if (!acting.participantId)
    return { error: acting.reason ?? "No participant context", detail: null, fields: [] };
  const negotiationId = field("negotiationId");
  if (!negotiationId) return aboutAgreement("Choose a contract agreement to transfer under.");
  try {
    const n = toNegotiationView(await ds.getNegotiation(acting.participantId, negotiationId));
    if (n.state !== "FINALIZED" || !n.contractId) {
      return aboutAgreement(
        `Negotiation ${negotiationId} is ${n.state ? stateLabel(n.state).toLowerCase() : "not finalised"}: a transfer needs a finalised contract agreement.`,
      );
    }
    if (!n.counterPartyAddress) {
      return aboutAgreement(`Negotiation ${negotiationId} names no counter-party address to transfer from.`);
    }
    // the fields POST /api/transfers requires are all present: the service takes the request as it is
    const transfer = await ds.startTransfer(
      {
        participantId: acting.participantId,
        contractId: n.contractId,
        counterPartyAddress: n.counterPartyAddress,
        assetId: n.assetId,
        transferType: "HttpData-PULL",
      },
      user.username,
    );
    return redirect(
      `/transfers/${encodeURIComponent(String(transfer["@id"] ?? ""))}${participantQuery(acting)}`,
    );
  } catch (e) {
    const f = apiFailure(e);
    // the agreement is unknown, or the request's contract and addresses (taken from it) are refused
    if (formFieldErrorsOf(e).length || f.status === 404) return aboutAgreement(f.error, f.detail);
    return { error: f.error, detail: f.detail, fields: [] };
  }
}

export default function Transfers() {
  const { acting, transfers, agreements, error, preselect } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const starting = navigation.state === "submitting" && navigation.formAction?.startsWith("/transfers");
  const q = participantQuery(acting);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, result);

  return (
    <section className="ds-page" data-testid="transfers-page">
      <DataspaceHead title="Transfers">
        Data transfers under your contract agreements, and their progress.
      </DataspaceHead>
      <ParticipantPicker acting={acting} />
      {acting.reason ? <p className="notice">{acting.reason}</p> : null}
      <ErrorNotice error={error} testId="transfers-error" />

      <div className="card ds-start" data-testid="transfer-start">
        <h2>Start a transfer</h2>
        {agreements.length === 0 ? (
          <p className="muted">
            You hold no contract agreement yet. <AppLink to={`/negotiate${q}`}>Negotiate one</AppLink> first.
          </p>
        ) : (
          <Form ref={formRef} method="post" className="ds-inline">
            {acting.canChoose && acting.participantId ? (
              <input type="hidden" name="participant" value={acting.participantId} />
            ) : null}
            <Filter label="Contract agreement" grow>
              <Invalid message={fieldMessage(result, "negotiationId")}>
                <select
                  name="negotiationId"
                  defaultValue={agreements.some((a) => a.id === preselect) ? preselect : agreements[0]?.id}
                  data-testid="transfer-agreement"
                >
                  {agreements.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.title} · agreement {shortId(a.contractId)}
                      {a.demo ? " (demonstration)" : ""}
                    </option>
                  ))}
                </select>
              </Invalid>
            </Filter>
            <button type="submit" className="button" data-testid="transfer-start-submit" disabled={starting}>
              {starting ? "Starting…" : "Start transfer"}
            </button>
          </Form>
        )}
        <ErrorNotice error={result && "error" in result ? result : null} testId="transfer-start-error" />
      </div>

      <h2>
        {acting.displayName ? `Transfers of ${acting.displayName}` : "Transfers"}{" "}
        <span className="muted small">({plural(transfers.length, "transfer")})</span>
      </h2>
      {transfers.length === 0 ? (
        <p className="muted card empty">No transfers yet.</p>
      ) : (
        <div className="table-wrap card flush">
          <DataTable
            className="data ds-table"
            data-testid="transfers-table"
            columns={["Transfer", "Asset", "Counter-party", "State", "Type", "Updated"]}
          >
            {transfers.map((t) => (
              <tr key={t.id} data-testid="transfer-row" data-transfer-id={t.id} data-state={t.state}>
                <td>
                  <AppLink to={`/transfers/${encodeURIComponent(t.id)}${q}`} data-testid="transfer-title">
                    {t.title}
                  </AppLink>
                  <div className="muted small">
                    <code title={t.id}>{shortId(t.id)}</code>
                  </div>
                  <DemoBadge of={t} />
                </td>
                <td>
                  {t.assetName || "—"}
                  {t.assetName !== t.assetId ? (
                    <div className="muted small">
                      <code>{t.assetId}</code>
                    </div>
                  ) : null}
                </td>
                <td>{t.counterPartyName}</td>
                <td>
                  <div className="ds-state-cell">
                    <StateBadge state={t.state} />
                    <StatePipeline kind="transfer" state={t.state} compact />
                  </div>
                </td>
                <td className="small">{transferTypeLabel(t.transferType)}</td>
                <td className="small nowrap">{formatStamp(t.stateTimestamp ?? t.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </section>
  );
}
