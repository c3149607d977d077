import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { apiFailure, hasRole, loadActing } from "../../lib/dataspace/access.server";
import { stateCounts } from "../../components/dataspace/states";
import {
  DataspaceHead,
  ErrorNotice,
  ParticipantPicker,
  participantQuery,
} from "../../components/dataspace/ui";
import { roleLabel } from "../../components/ui/labels";
import { Badge } from "../../components/ui/Badge";
import { formatDate, formatNumber } from "../../components/ui/format";
import { ASSET_WRITE_ROLES, ONBOARDING_ROLES, settle } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";

/**
 * The dataspace at a glance for the signed-in participant: who it is in the dataspace (context,
 * DID, credentials), what runs (negotiations, transfers, assets), which connector answers, and
 * the consumer and provider flows as steps to follow.
 */

export const meta: MetaFunction = () => [{ title: "Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, ds, participants, participantsError, acting } = await loadActing(request, context);
  const id = acting.participantId;
  const [negotiations, transfers, assets, credentials] = id
    ? await Promise.all([
        settle(ds.listNegotiations(id), apiFailure),
        settle(ds.listTransfers(id), apiFailure),
        settle(ds.listAssets(id), apiFailure),
        settle(ds.participantCredentials(id), apiFailure),
      ])
    : [null, null, null, null];
  const states = (list: readonly Record<string, unknown>[], kind: "negotiation" | "transfer") => ({
    total: list.length,
    ...stateCounts(list.map((r) => ({ kind, state: String(r.state ?? "") }))),
  });
  const me = participants.find((p) => p.participantId === id);
  return {
    acting,
    role: me?.role ?? "",
    mode: ds.mode,
    participantCount: participants.length,
    participantsError,
    negotiations: negotiations?.ok ? states(negotiations.value, "negotiation") : null,
    transfers: transfers?.ok ? states(transfers.value, "transfer") : null,
    assets: assets?.ok ? assets.value.length : null,
    credentials: credentials?.ok
      ? credentials.value.map((c) => ({
          id: c.id,
          type: c.type.filter((t) => t !== "VerifiableCredential").join(", ") || c.type.join(", "),
          issuer: c.issuer,
          issued: c.issuanceDate,
          status: typeof c.status === "string" ? c.status : "",
        }))
      : null,
    credentialsError: credentials && !credentials.ok ? credentials.error : null,
    canShare: hasRole(user, ASSET_WRITE_ROLES),
    canOnboard: hasRole(user, ONBOARDING_ROLES),
  };
}

function Stat({
  label,
  value,
  to,
  children,
  testId,
}: {
  label: string;
  value: number | null;
  to: string;
  children?: React.ReactNode;
  testId: string;
}) {
  return (
    <AppLink to={to} className="card stat ds-stat" data-testid={testId}>
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value === null ? "—" : formatNumber(value)}</span>
      {children}
    </AppLink>
  );
}

export default function DataspaceOverview() {
  const d = useLoaderData<typeof loader>();
  const q = participantQuery(d.acting);
  return (
    <section className="ds-page" data-testid="dataspace-page">
      <DataspaceHead title="Dataspace">
        Exchange health data between participants under negotiated contracts, over the Dataspace Protocol.
      </DataspaceHead>
      {d.mode === "embedded" ? (
        <p className="notice" data-testid="dataspace-mode">
          <strong>Embedded development dataspace.</strong> This server runs its own connector, tenant manager
          and issuer on loopback for development and demonstration; a production deployment points at a real
          connector
          {d.acting.canChoose ? (
            <>
              {" "}
              (<code>CONNECTOR_MANAGEMENT_URL</code>)
            </>
          ) : null}
          .
        </p>
      ) : null}
      {d.acting.canChoose ? <ParticipantPicker acting={d.acting} label="Show participant" /> : null}
      {d.acting.reason ? <p className="notice">{d.acting.reason}</p> : null}
      <ErrorNotice error={d.participantsError ? { error: d.participantsError } : null} />

      {d.acting.participantId ? (
        <div className="card ds-identity" data-testid="dataspace-identity">
          <div>
            <h2>{d.acting.displayName}</h2>
            <p className="muted small">
              {d.role ? <Badge tone="info">{roleLabel(d.role)}</Badge> : null} context{" "}
              <code>{d.acting.participantId}</code>
            </p>
            <p className="small">
              DID <code className="wrap">{d.acting.did}</code>
            </p>
          </div>
          <div className="ds-credentials">
            <h3>Credentials</h3>
            <ErrorNotice error={d.credentialsError} />
            {d.credentials && d.credentials.length === 0 ? <p className="muted small">None held.</p> : null}
            {d.credentials?.length ? (
              <ul className="plain" data-testid="dataspace-credentials">
                {d.credentials.map((c) => (
                  <li key={c.id}>
                    <strong>{c.type}</strong>{" "}
                    {c.status ? (
                      <Badge tone={c.status === "REVOKED" ? "danger" : "ok"}>{c.status.toLowerCase()}</Badge>
                    ) : null}
                    <br />
                    <span className="muted small">
                      issued {formatDate(c.issued)} by <code className="wrap">{c.issuer}</code>
                    </span>
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        </div>
      ) : null}

      <div className="stat-grid ds-stats">
        <Stat
          label="Negotiations"
          value={d.negotiations?.total ?? null}
          to={`/negotiations${q}`}
          testId="dataspace-stat-negotiations"
        >
          {d.negotiations ? (
            <span className="small muted">
              {d.negotiations.running} running · {d.negotiations.done} finalised · {d.negotiations.failed}{" "}
              terminated
            </span>
          ) : null}
        </Stat>
        <Stat
          label="Transfers"
          value={d.transfers?.total ?? null}
          to={`/transfers${q}`}
          testId="dataspace-stat-transfers"
        >
          {d.transfers ? (
            <span className="small muted">
              {d.transfers.running} running · {d.transfers.done} completed · {d.transfers.failed} terminated
            </span>
          ) : null}
        </Stat>
        <Stat label="Shared assets" value={d.assets} to={`/share${q}`} testId="dataspace-stat-assets" />
        <Stat
          label="Participants"
          value={d.participantCount}
          to="/onboarding"
          testId="dataspace-stat-participants"
        />
      </div>

      <div className="ds-flows">
        <section className="card" aria-labelledby="flow-consumer">
          <h2 id="flow-consumer">Use data (consumer)</h2>
          <ol className="ds-flow">
            <li>
              <AppLink to="/discover">Discover</AppLink> the assets and datasets participants offer.
            </li>
            <li>
              <AppLink to={`/negotiate${q}`}>Negotiate</AppLink>: fetch a provider&apos;s catalogue, pick an
              offer and reach a contract agreement.
            </li>
            <li>
              <AppLink to={`/transfers${q}`}>Transfer</AppLink> the data under the agreement and read the
              records.
            </li>
          </ol>
        </section>
        {d.canShare || d.canOnboard ? (
          <section className="card" aria-labelledby="flow-provider">
            <h2 id="flow-provider">Provide data (provider)</h2>
            <ol className="ds-flow">
              {d.canOnboard ? (
                <li>
                  <AppLink to="/onboarding">Onboard</AppLink> a participant: DID, keys and a connector
                  context.
                </li>
              ) : null}
              <li>
                <AppLink to={`/share${q}`}>Share data</AppLink>: register assets with your connector; they
                appear in your catalogue.
              </li>
              <li>
                Follow the <AppLink to="/tasks">tasks</AppLink>: the negotiations and transfers consumers run
                with you.
              </li>
            </ol>
          </section>
        ) : (
          <section className="card" aria-labelledby="flow-follow">
            <h2 id="flow-follow">Keep track</h2>
            <ol className="ds-flow">
              <li>
                <AppLink to={`/negotiations${q}`}>Negotiations</AppLink>: the contracts you asked for and
                their states.
              </li>
              <li>
                <AppLink to="/tasks">Tasks</AppLink>: everything your organisation has running in the
                dataspace, refreshed on its own.
              </li>
            </ol>
          </section>
        )}
      </div>
    </section>
  );
}
