import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { loadActing, recordFailure } from "../../lib/dataspace/access.server";
import { assetBook, nameBook, toNegotiationView } from "../../lib/dataspace/records.server";
import { isFailedState } from "../../components/dataspace/states";
import { DataspaceHead, formatStamp, participantQuery } from "../../components/dataspace/ui";
import { AppLink } from "../../components/ui/app-link";
import { stateLabel } from "../../components/ui/labels";
import { DetailsCard, LiveState, ProgressCard, useLiveRecord } from "../../components/route-kit/live-record";
import type { PolledState } from "../../components/route-kit/polled-state.server";
import { FieldRow } from "../../components/route-kit/FieldRow";

/**
 * One contract negotiation, live: its state pipeline (REQUESTED → AGREED → VERIFIED → FINALIZED,
 * or TERMINATED with the connector's error detail), polled through a fetcher from
 * /dataspace/negotiation/{id}; once FINALIZED, the agreement and a transfer to start under it.
 */

export const meta: MetaFunction = () => [{ title: "Negotiation · Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ds, participants, acting } = await loadActing(request, context);
  if (!acting.participantId) throw new Response(acting.reason ?? "No participant context", { status: 403 });
  try {
    const [raw, assets] = await Promise.all([
      ds.getNegotiation(acting.participantId, params.id ?? ""),
      assetBook(ds),
    ]);
    const negotiation = toNegotiationView(raw, nameBook(participants), assets);
    const provider = participants.find(
      (p) => p.did === negotiation.counterPartyId || p.participantId === negotiation.counterPartyId,
    );
    return { acting, negotiation, raw, providerId: provider?.participantId ?? "" };
  } catch (e) {
    throw recordFailure(e, "This negotiation does not exist for your participant.");
  }
}

export default function NegotiationDetail() {
  const data = useLoaderData<typeof loader>();
  // a fresh view (history, polling) for each negotiation
  return <NegotiationView key={data.negotiation.id} {...data} />;
}

function NegotiationView({
  acting,
  negotiation: n,
  raw,
  providerId,
}: ReturnType<typeof useLoaderData<typeof loader>>) {
  const navigation = useNavigation();
  const q = participantQuery(acting);
  const progress = useLiveRecord<PolledState & { contractId: string }>("negotiation", n, q);
  const { live, state, settled } = progress;
  const contractId = live?.contractId || n.contractId;
  const errorDetail = live?.errorDetail || n.errorDetail;

  const failed = isFailedState(state);
  const finalized = state === "FINALIZED";
  const starting = navigation.state === "submitting" && navigation.formAction?.startsWith("/transfers");

  return (
    <section className="ds-page" data-testid="negotiation-page" data-negotiation-id={n.id}>
      <DataspaceHead
        title={
          <>
            Contract for <span data-testid="negotiation-asset">{n.title}</span>
          </>
        }
        back={{ to: `/negotiations${q}`, label: "← Negotiations" }}
        aside={<LiveState kind="negotiation" demo={n} state={state} />}
      >
        with <strong>{n.counterPartyName}</strong> · negotiated by {acting.displayName}
      </DataspaceHead>

      <ProgressCard
        kind="negotiation"
        status={
          settled || n.demo
            ? failed
              ? "The negotiation was terminated."
              : finalized
                ? "The negotiation is finalised: a contract agreement is in place."
                : n.demo
                  ? "A demonstration record: its state does not change."
                  : ""
            : `Watching the connector… now ${stateLabel(state).toLowerCase()}`
        }
        progress={progress}
      >
        {errorDetail ? (
          <span data-testid="negotiation-error-detail">{errorDetail}</span>
        ) : (
          "The connector gave no reason."
        )}
        <p className="small">
          <AppLink
            to={`/negotiate${q ? `${q}&` : "?"}provider=${encodeURIComponent(providerId)}&asset=${encodeURIComponent(n.assetId)}`}
            data-testid="negotiation-retry"
          >
            Negotiate again
          </AppLink>{" "}
          with a fresh offer from the provider&apos;s catalogue.
        </p>
      </ProgressCard>

      {finalized ? (
        <div className="card ds-agreement" data-testid="negotiation-agreement">
          <h2>Contract agreement</h2>
          <dl className="fields">
            <FieldRow label="Agreement id">
              <code data-testid="negotiation-contract-id">{contractId}</code>
            </FieldRow>
            <FieldRow label="Asset">
              <code>{n.assetId}</code>
            </FieldRow>
            <FieldRow label="Provider">{n.counterPartyName}</FieldRow>
          </dl>
          {n.type === "PROVIDER" ? (
            <p className="muted small">
              You are the provider in this agreement: the consumer starts transfers under it.
            </p>
          ) : (
            <Form method="post" action="/transfers?index" className="actions">
              <input type="hidden" name="negotiationId" value={n.id} />
              {acting.canChoose && acting.participantId ? (
                <input type="hidden" name="participant" value={acting.participantId} />
              ) : null}
              <button
                type="submit"
                className="button"
                data-testid="negotiation-start-transfer"
                disabled={starting}
              >
                {starting ? "Starting the transfer…" : "Start transfer"}
              </button>
              <span className="muted small">
                Transfer by HTTP pull: the provider&apos;s data plane hands your connector an endpoint and a
                token, and the records are pulled from there.
              </span>
            </Form>
          )}
        </div>
      ) : null}

      <DetailsCard raw={raw}>
        <FieldRow label="Negotiation id">
          <code>{n.id}</code>
        </FieldRow>
        <FieldRow label="Side">{n.type === "PROVIDER" ? "provider" : "consumer"}</FieldRow>
        <FieldRow label="Counter-party">
          {n.counterPartyName}
          {n.counterPartyId && n.counterPartyId !== n.counterPartyName ? (
            <>
              {" "}
              <code className="wrap">{n.counterPartyId}</code>
            </>
          ) : null}
        </FieldRow>
        <FieldRow label="Counter-party address">
          <code className="wrap">{n.counterPartyAddress}</code>
        </FieldRow>
        <FieldRow label="Started">{formatStamp(n.createdAt)}</FieldRow>
      </DetailsCard>
    </section>
  );
}
