import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import type { NegotiationPollResult } from "../dataspace.negotiation.$id/route";
import { apiFailure, loadActing } from "../../lib/dataspace/access.server";
import { assetBook, nameBook, toNegotiationView } from "../../lib/dataspace/records.server";
import { isFailedState, pipelineOf } from "../../components/dataspace/states";
import { StatePipeline } from "../../components/dataspace/StatePipeline";
import {
  DataspaceHead,
  DemoBadge,
  ErrorNotice,
  StateBadge,
  formatStamp,
  participantQuery,
  usePolledFetcher,
} from "../../components/dataspace/ui";
import { AppLink } from "../../components/ui/app-link";
import { stateLabel } from "../../components/ui/labels";
import { ConnectorRecord, reachedOf, StatesSeen, type Seen } from "../../components/route-kit/live-record";
import { FieldRow } from "../../components/route-kit/FieldRow";

/**
 * One contract negotiation, live: its state pipeline (REQUESTED → AGREED → VERIFIED → FINALIZED,
 * or TERMINATED with the connector's error detail), polled through a fetcher from
 * /dataspace/negotiation/{id}; once FINALIZED, the agreement and a transfer to start under it.
 */

export const meta: MetaFunction = () => [{ title: "Negotiation · Dataspace · Health Dataspace Hub" }];

const POLL_MS = 400;

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
    const f = apiFailure(e);
    throw new Response(f.status === 404 ? "This negotiation does not exist for your participant." : f.error, {
      status: f.status === 404 ? 404 : 502,
    });
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
  const [history, setHistory] = useState<Seen[]>(() => [
    { state: n.state, at: n.stateTimestamp ?? n.createdAt ?? 0 },
  ]);
  const initiallySettled = pipelineOf("negotiation", n.state).settled;
  const [settled, setSettled] = useState(initiallySettled);
  const poll = usePolledFetcher<NegotiationPollResult>(
    `/dataspace/negotiation/${encodeURIComponent(n.id)}${participantQuery(acting)}`,
    POLL_MS,
    !settled && !n.demo,
  );
  const live = poll.data && poll.data.ok ? poll.data : null;
  const state = live?.state ?? n.state;
  const contractId = live?.contractId || n.contractId;
  const errorDetail = live?.errorDetail || n.errorDetail;

  useEffect(() => {
    if (!live) return;
    setHistory((h) =>
      h[h.length - 1]?.state === live.state
        ? h
        : [...h, { state: live.state, at: live.stateTimestamp ?? live.at }],
    );
    if (pipelineOf("negotiation", live.state).settled) setSettled(true);
  }, [live]);

  const failed = isFailedState(state);
  const reached = reachedOf(history);
  const finalized = state === "FINALIZED";
  const starting = navigation.state === "submitting" && navigation.formAction?.startsWith("/transfers");
  const q = participantQuery(acting);

  return (
    <section className="ds-page" data-testid="negotiation-page" data-negotiation-id={n.id}>
      <DataspaceHead
        title={
          <>
            Contract for <span data-testid="negotiation-asset">{n.title}</span>
          </>
        }
        back={{ to: `/negotiations${q}`, label: "← Negotiations" }}
        aside={
          <div className="ds-head-state">
            <DemoBadge of={n} />
            <StateBadge state={state} testId="negotiation-state" />
          </div>
        }
      >
        with <strong>{n.counterPartyName}</strong> · negotiated by {acting.displayName}
      </DataspaceHead>

      <div className="card ds-pipeline-card">
        <div className="ds-pipeline-head">
          <h2>Progress</h2>
          <p className="muted small" role="status" aria-live="polite" data-testid="negotiation-live">
            {settled || n.demo
              ? failed
                ? "The negotiation was terminated."
                : finalized
                  ? "The negotiation is finalised: a contract agreement is in place."
                  : n.demo
                    ? "A demonstration record: its state does not change."
                    : ""
              : `Watching the connector… now ${stateLabel(state).toLowerCase()}`}
          </p>
        </div>
        <StatePipeline kind="negotiation" state={state} reached={reached} testId="negotiation-pipeline" />
        {poll.data && !poll.data.ok ? (
          <ErrorNotice error={poll.data} testId="negotiation-poll-error" />
        ) : null}
        {failed ? (
          <div className="notice error" role="alert" data-testid="negotiation-error">
            <strong>Terminated.</strong>{" "}
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
          </div>
        ) : null}
        <StatesSeen history={history} testId="negotiation-history" />
      </div>

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

      <div className="card">
        <h2>Details</h2>
        <dl className="fields">
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
        </dl>
        <ConnectorRecord raw={raw} />
      </div>
    </section>
  );
}
