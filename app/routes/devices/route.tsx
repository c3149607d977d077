import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useFetcher,
  useLoaderData,
  useNavigation,
  useRevalidator,
  useRouteError,
  useSearchParams,
} from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { devicesAction, loadDevicesView, type DevicesAction } from "./devices.server";
import type { Services } from "../../../server/services";
import { usePolling } from "../../components/patient-app/usePolling";
import { Badge } from "../../components/ui/Badge";
import { formatDateTime, plural } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { PATIENT_ROLES } from "../../lib/access.server";
import { Invalid, intentFieldMessage, useFocusFirstInvalid } from "../../components/ui/field-errors";
import { AppLink } from "../../components/ui/app-link";
import { ACTIONS, DataTable, num } from "../../components/route-kit/DataTable";
import { optionList } from "../../components/route-kit/options";
import { routeErrorText } from "../../components/route-kit/route-error";

/**
 * The patient's companion app devices: pair (code and QR, live state), list, remove (revokes the
 * device's credential at once), the self-measured data the app added (marked as such), EHR sync and
 * erasure of all app data (GDPR Art. 17).
 */

export const meta: MetaFunction = () => [{ title: "Devices and app · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, PATIENT_ROLES);
  if (!user.patientId) return { linked: false as const };
  return { linked: true as const, ...(await loadDevicesView(context.services, user)) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, PATIENT_ROLES);
  if (!user.patientId)
    return { intent: "none", ok: false as const, message: "Your account is not linked to a patient record." };
  return devicesAction(request, context.services, user);
}

function PairingPanel({ pairing }: { pairing: Pairing }) {
  const fetcher = useFetcher<Awaited<ReturnType<Services["patientApp"]["pairing"]>> | { error: string }>();
  const revalidator = useRevalidator();
  const state = fetcher.data && "state" in fetcher.data ? fetcher.data : null;
  const done = state !== null && state.state !== "pending";
  usePolling(
    () => {
      if (fetcher.state === "idle") fetcher.load(`/devices/pairing/${encodeURIComponent(pairing.pairingId)}`);
    },
    1500,
    !done,
  );
  useEffect(() => {
    if (state?.state === "completed") revalidator.revalidate();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state?.state]);
  return (
    <div className="card pairing" data-testid="pairing">
      <h2>Pair your companion app</h2>
      <div className="pairing-body">
        <img
          src={pairing.qr}
          alt="QR code for pairing: scan it in the companion app"
          width={180}
          height={180}
        />
        <div>
          <p>In the companion app, choose “Pair with my record” and scan the code, or type:</p>
          <p className="pairing-code" data-testid="pairing-code">
            {pairing.code}
          </p>
          <p className="muted small">Valid until {formatDateTime(pairing.expiresAt)}, once.</p>
          <p role="status" aria-live="polite">
            State:{" "}
            <span data-testid="pairing-state" data-state={state?.state ?? "pending"}>
              {state?.state === "completed" ? (
                <Badge tone="ok">paired with {state.device?.name ?? "a device"}</Badge>
              ) : state?.state === "expired" ? (
                <Badge tone="warn">expired: start a new pairing</Badge>
              ) : (
                <Badge tone="info">waiting for the app</Badge>
              )}
            </span>
          </p>
        </div>
      </div>
    </div>
  );
}

export default function Devices() {
  const view = useLoaderData<typeof loader>();
  if (!view.linked) {
    return (
      <section className="card">
        <h1>Devices and app</h1>
        <p>Your account is not linked to a patient record yet.</p>
      </section>
    );
  }
  return <DevicesView view={view} />;
}

type View = Extract<ReturnType<typeof useLoaderData<typeof loader>>, { linked: true }>;
type Pairing = Extract<DevicesAction, { intent: "pair" }>["pairing"];

function DevicesView({ view }: { view: View }) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const confirmRemove = useSearchParams()[0].get("remove");
  // the pairing outlives the revalidation that follows its completion (which clears action data)
  const [pairing, setPairing] = useState<Pairing | null>(null);
  useEffect(() => {
    if (result?.ok && result.intent === "pair" && "pairing" in result) setPairing(result.pairing);
    else if (result) setPairing(null);
  }, [result]);
  const removing = view.devices.find((d) => d.deviceId === confirmRemove);
  const measureRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(measureRef, result);
  const measureError = (name: string) =>
    intentFieldMessage(result && "fields" in result ? result : null, "measure", name);
  return (
    <section className="devices-page">
      <div className="page-head">
        <div>
          <h1>Devices and app</h1>
          <p className="lead">
            Pair the companion app with your record, see what it added, and remove a device at any time.
          </p>
        </div>
        <Form method="post">
          <button
            type="submit"
            name="intent"
            value="pair"
            className="button"
            disabled={busy}
            data-testid="pair-device"
          >
            Pair a device
          </button>
        </Form>
      </div>

      {result && !result.ok ? (
        <p className="notice error" role="alert" data-testid="devices-error">
          {result.message}
        </p>
      ) : null}
      {result?.ok && (result.intent === "remove" || result.intent === "measure") && "message" in result ? (
        <p className="notice ok" role="status" data-testid="devices-notice">
          {result.message}
        </p>
      ) : null}
      {pairing ? <PairingPanel key={pairing.pairingId} pairing={pairing} /> : null}

      <div className="card">
        <h2>Paired devices</h2>
        {view.devices.length === 0 ? (
          <p className="muted" data-testid="no-devices">
            No device is paired with your record.
          </p>
        ) : (
          <div className="table-wrap">
            <DataTable data-testid="device-list" columns={["Device", "Paired", "Last seen", ACTIONS]}>
              {view.devices.map((d) => (
                <tr key={d.deviceId} data-testid={`device-${d.deviceId}`}>
                  <td>
                    <strong>{d.name}</strong>
                    {d.platform ? <span className="muted"> · {d.platform}</span> : null}
                    <br />
                    <code className="small">{d.deviceId}</code>
                  </td>
                  <td>{formatDateTime(d.pairedAt)}</td>
                  <td>
                    {d.lastSeenAt ? formatDateTime(d.lastSeenAt) : <span className="muted">not yet</span>}
                  </td>
                  <td>
                    <Link
                      to={`?remove=${encodeURIComponent(d.deviceId)}`}
                      className="button ghost"
                      preventScrollReset
                      data-testid={`remove-${d.deviceId}`}
                    >
                      Remove
                    </Link>
                  </td>
                </tr>
              ))}
            </DataTable>
          </div>
        )}
        {removing ? (
          <Form method="post" action="/devices" className="confirm" data-testid="confirm-remove">
            <p>
              Remove <strong>{removing.name}</strong>? Its credential is revoked at once: the app on it can no
              longer read or add to your record. The measurements it added stay in your record until you erase
              them.
            </p>
            <input type="hidden" name="deviceId" value={removing.deviceId} />
            <div className="actions">
              <button
                type="submit"
                name="intent"
                value="remove"
                className="button danger"
                disabled={busy}
                data-testid="confirm-remove-button"
              >
                Remove device
              </button>
              <AppLink to="/devices" className="button ghost">
                Cancel
              </AppLink>
            </div>
          </Form>
        ) : null}
      </div>

      <div className="card">
        <h2>Self-measured data</h2>
        <p className="muted small">
          Added by you or your companion app, and marked as such; your care providers&apos; records are in My
          record.
        </p>
        {view.selfMeasured.length === 0 ? (
          <p className="muted" data-testid="no-self-measured">
            Nothing yet. Measurements from the app appear here.
          </p>
        ) : (
          <div className="table-wrap">
            <DataTable
              data-testid="self-measured"
              columns={["Measurement", num("Value"), "Measured", "Source"]}
            >
              {view.selfMeasured.map((o) => (
                <tr key={o.id} data-testid="self-measured-row">
                  <td>
                    {o.display} <span className="muted small">LOINC {o.code}</span>
                  </td>
                  <td className="num">
                    {o.value} {o.unit}{" "}
                    {o.interpretation === "H" ? (
                      <Badge tone="warn">high</Badge>
                    ) : o.interpretation === "L" ? (
                      <Badge tone="warn">low</Badge>
                    ) : null}
                  </td>
                  <td>{formatDateTime(o.effectiveDateTime)}</td>
                  <td>
                    <Badge tone="info">Self-measured</Badge>{" "}
                    {o.device ? <span className="muted small">{o.device}</span> : null}
                  </td>
                </tr>
              ))}
            </DataTable>
          </div>
        )}
        <Form ref={measureRef} method="post" className="inline-form measure-form">
          <label>
            <span>Measurement</span>
            <select name="measure" defaultValue="8867-4|/min">
              {optionList(view.measures, (m) => [m.value, m.label])}
            </select>
          </label>
          <label>
            <span>Value</span>
            <Invalid message={measureError("value")}>
              <input name="value" inputMode="decimal" required size={6} />
            </Invalid>
          </label>
          <label>
            <span>Measured at (UTC, optional)</span>
            <Invalid message={measureError("effective")}>
              <input name="effective" type="datetime-local" />
            </Invalid>
          </label>
          <button type="submit" name="intent" value="measure" className="button ghost" disabled={busy}>
            Add
          </button>
        </Form>
      </div>

      <div className="two-col">
        <div className="card">
          <h2>Your record from your care providers</h2>
          <p>
            Bring the companion app&apos;s copy of your record up to date with what your care providers hold.{" "}
            {view.lastSync ? (
              <span className="muted">Last synchronised {formatDateTime(view.lastSync)}.</span>
            ) : (
              <span className="muted">Never synchronised.</span>
            )}
          </p>
          <Form method="post">
            <button
              type="submit"
              name="intent"
              value="sync"
              className="button ghost"
              disabled={busy}
              data-testid="ehr-sync"
            >
              Synchronise now
            </button>
          </Form>
          {result?.ok && result.intent === "sync" && "report" in result && "holders" in result.report ? (
            <div className="notice ok sync-report" role="status" data-testid="sync-report">
              <p>
                {result.report.changed
                  ? `${result.report.totals.added} added, ${result.report.totals.updated} updated, ${result.report.totals.removed} removed, ${result.report.totals.unchanged} unchanged.`
                  : `Already up to date: ${result.report.totals.unchanged} records unchanged.`}
              </p>
              <ul>
                {result.report.holders.map((h) => (
                  <li key={h.holder}>
                    {h.name}: {h.added} added, {h.updated} updated, {h.unchanged} unchanged, {h.removed}{" "}
                    removed
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
        <div className="card">
          <h2>Erase app data</h2>
          <p>
            Erase every companion app account, device and self-measured measurement of your record (GDPR Art.
            17). Your care providers&apos; records are not affected.
          </p>
          <Form method="post">
            <label className="check">
              <input type="checkbox" name="confirm" value="yes" /> I want to erase all app data
            </label>
            <div className="actions">
              <button
                type="submit"
                name="intent"
                value="erase"
                className="button danger"
                disabled={busy}
                data-testid="erase-app-data"
              >
                Erase
              </button>
            </div>
          </Form>
          {result?.ok && result.intent === "erase" && "report" in result && "erased" in result.report ? (
            <div className="notice ok" role="status" data-testid="erase-report">
              <p>
                Erased {plural(result.report.erased.appAccounts, "app account")},{" "}
                {plural(result.report.erased.selfMeasuredObservations, "self-measured measurement")},{" "}
                {plural(result.report.erased.pairings, "pairing")} and{" "}
                {plural(result.report.erased.syncLedgerEntries, "sync ledger entry", "sync ledger entries")}.
              </p>
              <ul>
                {result.report.retained.map((r) => (
                  <li key={r}>Kept: {r}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  return (
    <section className="card error-page" role="alert">
      <h1>Your devices could not be shown</h1>
      <p>{routeErrorText(error, "Please try again later.")}</p>
    </section>
  );
}
