import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import {
  actingParticipant,
  apiFailure,
  formText,
  loadActing,
  recordFailure,
} from "../../lib/dataspace/access.server";
import { FhirRecords } from "../../components/dataspace/FhirRecords";
import { assetBook, nameBook, toTransferView } from "../../lib/dataspace/records.server";
import { isFailedState } from "../../components/dataspace/states";
import {
  DataspaceHead,
  ErrorNotice,
  formatStamp,
  formatTime,
  participantQuery,
} from "../../components/dataspace/ui";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";
import { stateLabel, transferTypeLabel } from "../../components/ui/labels";
import { DetailsCard, LiveState, ProgressCard, useLiveRecord } from "../../components/route-kit/live-record";
import type { PolledState } from "../../components/route-kit/polled-state.server";
import { FieldRow } from "../../components/route-kit/FieldRow";
import { readForm } from "../../lib/api-errors.server";

/**
 * One transfer process, live: REQUESTED → STARTED → COMPLETED (or TERMINATED with the reason),
 * polled through a fetcher from /dataspace/transfer/{id}. Once STARTED, the consumer pulls the
 * data from the provider's data plane with the endpoint data reference, which completes a pull
 * transfer; the records are shown as a table of FHIR resources and as raw JSON.
 */

export const meta: MetaFunction = () => [{ title: "Transfer · Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ds, participants, acting } = await loadActing(request, context);
  if (!acting.participantId) throw new Response(acting.reason ?? "No participant context", { status: 403 });
  try {
    const raw = await ds.getTransfer(acting.participantId, params.id ?? "");
    const assets = await assetBook(ds);
    return {
      acting,
      transfer: toTransferView(raw, nameBook(participants), assets),
      raw,
      loadedAt: Date.now(),
    };
  } catch (e) {
    throw recordFailure(e, "This transfer does not exist for your participant.");
  }
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const field = formText(await readForm(request));
  const acting = await actingParticipant(ds, user, field("participant") || null, "DATA_USER");
  if (!acting.participantId)
    return { ok: false as const, error: acting.reason ?? "No participant context", detail: null };
  try {
    const pulled = await ds.pullTransferData(acting.participantId, params.id ?? "", user.username);
    return { ok: true as const, ...pulled, at: Date.now() };
  } catch (e) {
    const f = apiFailure(e);
    return { ok: false as const, error: f.error, detail: f.detail };
  }
}

export default function TransferDetail() {
  const data = useLoaderData<typeof loader>();
  return <TransferView key={data.transfer.id} {...data} />;
}

function TransferView({
  acting,
  transfer: t,
  raw,
  loadedAt,
}: ReturnType<typeof useLoaderData<typeof loader>>) {
  const pulled = useActionData<typeof action>();
  const navigation = useNavigation();
  const pulling = navigation.state === "submitting" && navigation.formMethod === "POST";
  const q = participantQuery(acting);
  const progress = useLiveRecord<PolledState>("transfer", t, q, loadedAt);
  const { live, state } = progress;
  const errorDetail = live?.errorDetail || t.errorDetail;

  const failed = isFailedState(state);
  const canPull = !t.demo && (state === "STARTED" || state === "COMPLETED");

  return (
    <section className="ds-page" data-testid="transfer-page" data-transfer-id={t.id}>
      <DataspaceHead
        title={
          <>
            Transfer of <span data-testid="transfer-asset">{t.title}</span>
          </>
        }
        back={{ to: `/transfers${q}`, label: "← Transfers" }}
        aside={<LiveState kind="transfer" demo={t} state={state} />}
      >
        from <strong>{t.counterPartyName}</strong> to {acting.displayName} ·{" "}
        {transferTypeLabel(t.transferType) || "transfer"}
      </DataspaceHead>

      <ProgressCard
        kind="transfer"
        status={
          t.demo
            ? "A demonstration transfer: no connector runs it, and its state does not change."
            : failed
              ? "The transfer was terminated."
              : state === "COMPLETED"
                ? "The transfer is completed."
                : state === "STARTED"
                  ? "Started: the data is ready to be pulled from the provider's data plane."
                  : `Waiting for the provider to start the transfer… now ${stateLabel(state).toLowerCase()}`
        }
        progress={progress}
      >
        <span data-testid="transfer-error-detail">{errorDetail || "The connector gave no reason."}</span>
      </ProgressCard>

      <div className="card">
        <div className="ds-pull-head">
          <div>
            <h2>Data</h2>
            <p className="muted small">
              Your connector reads the endpoint data reference of the transfer and fetches the records from
              the provider&apos;s data plane with its token. The first pull completes a pull transfer.
            </p>
          </div>
          {canPull ? (
            <Form method="post">
              {acting.canChoose && acting.participantId ? (
                <input type="hidden" name="participant" value={acting.participantId} />
              ) : null}
              <button type="submit" className="button" data-testid="transfer-pull" disabled={pulling}>
                {pulling ? "Pulling…" : pulled?.ok ? "Pull again" : "Pull data"}
              </button>
            </Form>
          ) : null}
        </div>
        {t.demo ? (
          <p className="notice">No data plane stands behind a demonstration transfer.</p>
        ) : !canPull && !failed ? (
          <p className="muted">The data can be pulled once the provider has started the transfer.</p>
        ) : null}
        <ErrorNotice error={pulled && !pulled.ok ? pulled : null} testId="transfer-pull-error" />
        {pulled?.ok ? (
          <>
            <p className="notice ok small" role="status" data-testid="transfer-pulled">
              Pulled at {formatTime(pulled.at)} from <code className="wrap">{pulled.endpoint}</code> (
              {pulled.contentType})
            </p>
            {pulled.withdrawnDatasets ? (
              <p className="notice small" data-testid="transfer-withdrawn">
                Withdrawn from the catalogue since the contract, so none of their records is here:{" "}
                {pulled.withdrawnDatasets.join(", ")}
              </p>
            ) : null}
            <FhirRecords data={pulled.data} name={`${t.assetId || "transfer"}-${t.id.slice(0, 8)}`} />
          </>
        ) : null}
      </div>

      <DetailsCard raw={raw}>
        <FieldRow label="Transfer id">
          <code>{t.id}</code>
        </FieldRow>
        <FieldRow label="Contract agreement">
          <code className="wrap">{t.contractId}</code>
        </FieldRow>
        <FieldRow label="Counter-party address">
          <code className="wrap">{t.counterPartyAddress}</code>
        </FieldRow>
        <FieldRow label="Started">{formatStamp(t.createdAt)}</FieldRow>
      </DetailsCard>
    </section>
  );
}
