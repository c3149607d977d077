import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import { parseOnboardingInput } from "../../lib/dataspace/inputs.server";
import type { ParticipantStatus } from "../../../server/dataspace/participants";
import type { ParticipantPollResult } from "../dataspace.participant.$id/route";
import { apiFailure, hasRole, listChoices, formText } from "../../lib/dataspace/access.server";
import { StatePipeline } from "../../components/dataspace/StatePipeline";
import {
  DataspaceHead,
  DemoBadge,
  ErrorNotice,
  StateBadge,
  formatTime,
  PollFailureNotice,
  usePolledFetcher,
} from "../../components/dataspace/ui";
import { roleLabel } from "../../components/ui/labels";
import { plural } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ONBOARDING_ROLES, STAFF_ROLES } from "../../lib/access.server";
import { Invalid, fieldMessage } from "../../components/ui/field-errors";
import { formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import type { FormFieldError } from "../../types";
import { DataTable } from "../../components/route-kit/DataTable";
import { FieldRow } from "../../components/route-kit/FieldRow";
import { optionList } from "../../components/route-kit/options";

/**
 * Participants and provider onboarding. Everyone on the staff sees the participants of the
 * dataspace (GET /api/participants: ACTIVATED contexts with display name, role and DID); connector
 * admins onboard a new one (POST /api/participants) and watch its provisioning — the participant
 * context CREATED, then ACTIVATED with its DID — polled from /dataspace/participant/{id}.
 */

export const meta: MetaFunction = () => [{ title: "Participants · Dataspace · Health Dataspace Hub" }];

const ROLES = [
  { value: "DATA_HOLDER", label: "Data holder (shares health data)" },
  { value: "DATA_USER", label: "Data user (requests and uses data)" },
  { value: "HDAB", label: "Health data access body" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, STAFF_ROLES);
  const ds = context.services.dataspace;
  const url = new URL(request.url);
  const watch = url.searchParams.get("watch");
  const [{ participants, error }, watched] = await Promise.all([
    listChoices(ds),
    watch
      ? ds.participantStatus(watch).then(
          (status: ParticipantStatus | null) => ({ status, error: null }),
          (e: unknown) => ({ status: null, error: apiFailure(e) }),
        )
      : Promise.resolve(null),
  ]);
  return {
    participants: [...participants].sort((a, b) => a.displayName.localeCompare(b.displayName)),
    error,
    canOnboard: hasRole(user, ONBOARDING_ROLES),
    watch: watch ? { id: watch, ...watched! } : null,
  };
}

const FIELDS = ["displayName", "role", "organization", "ehdsParticipantType"] as const;
type FormValues = Record<(typeof FIELDS)[number], string>;
type ActionResult = { error: string; detail: string | null; values: FormValues; fields: FormFieldError[] };

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionResult | Response> {
  const user = await requireRole(request, context, ONBOARDING_ROLES);
  const field = formText(await readForm(request));
  const values = Object.fromEntries(FIELDS.map((k) => [k, field(k)])) as FormValues;
  try {
    const created = await context.services.dataspace.onboardParticipant(
      parseOnboardingInput(values),
      user.username,
    );
    return redirect(`/onboarding?watch=${encodeURIComponent(created.participantId)}`);
  } catch (e) {
    const f = apiFailure(e);
    return { error: f.error, detail: f.detail, values, fields: formFieldErrorsOf(e) };
  }
}

function ProvisioningWatch({
  watch,
}: {
  watch: NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["watch"]>;
}) {
  const revalidator = useRevalidator();
  const initial = watch.status;
  const activeAtLoad = initial?.state === "ACTIVATED";
  const poll = usePolledFetcher<ParticipantPollResult>(
    `/dataspace/participant/${encodeURIComponent(watch.id)}`,
    600,
    !activeAtLoad && !watch.error,
  );
  const live = poll.good ?? null;
  const status = live ?? initial;
  const state = status?.state ?? "CREATED";
  const active = state === "ACTIVATED";
  useEffect(() => {
    // the new participant joins the list once ACTIVATED
    if (live?.state === "ACTIVATED") revalidator.revalidate();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live?.state]);

  return (
    <div
      className={`card ds-provisioning${active ? " done" : ""}`}
      data-testid="onboarding-watch"
      data-state={state}
    >
      <div className="ds-pipeline-head">
        <h2>Provisioning {status?.displayName ?? watch.id}</h2>
        <p className="muted small" role="status" aria-live="polite" data-testid="onboarding-live">
          {active
            ? `Active since ${formatTime(status?.stateTimestamp ?? null) || "now"}: the participant can take part in the dataspace.`
            : "The tenant manager is provisioning the participant's DID, keys and connector context…"}
        </p>
      </div>
      <ErrorNotice error={watch.error} testId="onboarding-watch-error" />
      <PollFailureNotice failure={poll.failure} />
      <StatePipeline kind="participant" state={state} testId="onboarding-pipeline" />
      <dl className="fields">
        <FieldRow label="Participant context">
          <code data-testid="onboarding-participant-id">{watch.id}</code>
        </FieldRow>
        <FieldRow label="DID">
          {status?.did ? (
            <code className="wrap" data-testid="onboarding-did">
              {status.did}
            </code>
          ) : (
            <span className="muted">being provisioned…</span>
          )}
        </FieldRow>
        <FieldRow label="State">
          <StateBadge state={state} testId="onboarding-state" />
        </FieldRow>
      </dl>
    </div>
  );
}

export default function Onboarding() {
  const { participants, error, canOnboard, watch } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const submitting = useNavigation().state === "submitting";
  const v = result?.values;

  return (
    <section className="ds-page" data-testid="onboarding-page">
      <DataspaceHead title={canOnboard ? "Participants and onboarding" : "Participants"}>
        The organisations taking part in the dataspace, each with its own connector context and decentralised
        identifier (DID).
      </DataspaceHead>

      {canOnboard ? (
        <div className={watch ? "two-col ds-onboard-grid" : undefined}>
          <Form
            key={watch?.id ?? "new"}
            method="post"
            className="card ds-form"
            data-testid="onboarding-form"
            aria-labelledby="onboard-title"
          >
            <h2 id="onboard-title">Onboard a participant</h2>
            <p className="muted small">
              The tenant manager creates a tenant and a participant profile; provisioning gives the
              participant a DID, keys and an activated connector context, and the issuer a membership
              credential.
            </p>
            <div className="ds-form-grid">
              <div className="field">
                <label htmlFor="onboard-name">
                  Display name{" "}
                  <span className="required" aria-hidden>
                    *
                  </span>
                </label>
                <Invalid message={fieldMessage(result, "displayName")}>
                  <input
                    id="onboard-name"
                    name="displayName"
                    required
                    maxLength={200}
                    defaultValue={v?.displayName}
                    data-testid="onboarding-name"
                  />
                </Invalid>
              </div>
              <div className="field">
                <label htmlFor="onboard-role">
                  Role{" "}
                  <span className="required" aria-hidden>
                    *
                  </span>
                </label>
                <Invalid message={fieldMessage(result, "role")}>
                  <select
                    id="onboard-role"
                    name="role"
                    required
                    defaultValue={v?.role ?? "DATA_HOLDER"}
                    data-testid="onboarding-role"
                  >
                    {optionList(ROLES, (r) => [r.value, r.label])}
                  </select>
                </Invalid>
              </div>
              <div className="field">
                <label htmlFor="onboard-org">Organisation</label>
                <Invalid message={fieldMessage(result, "organization")}>
                  <input
                    id="onboard-org"
                    name="organization"
                    maxLength={200}
                    defaultValue={v?.organization}
                    aria-describedby="onboard-org-hint"
                    data-testid="onboarding-organization"
                  />
                </Invalid>
                <span className="hint" id="onboard-org-hint">
                  Empty: the display name.
                </span>
              </div>
              <div className="field">
                <label htmlFor="onboard-type">EHDS participant type</label>
                <Invalid message={fieldMessage(result, "ehdsParticipantType")}>
                  <input
                    id="onboard-type"
                    name="ehdsParticipantType"
                    maxLength={100}
                    defaultValue={v?.ehdsParticipantType}
                    aria-describedby="onboard-type-hint"
                    data-testid="onboarding-type"
                  />
                </Invalid>
                <span className="hint" id="onboard-type-hint">
                  Empty: the role.
                </span>
              </div>
            </div>
            <ErrorNotice error={result} testId="onboarding-error" />
            <div className="actions">
              <button type="submit" className="button" disabled={submitting} data-testid="onboarding-submit">
                {submitting ? "Creating…" : "Create participant"}
              </button>
            </div>
          </Form>
          {watch ? <ProvisioningWatch key={watch.id} watch={watch} /> : null}
        </div>
      ) : null}

      <h2>
        Active participants{" "}
        <span className="muted small">({plural(participants.length, "participant")})</span>
      </h2>
      <ErrorNotice error={error ? { error } : null} testId="participants-error" />
      <div className="table-wrap card flush">
        <DataTable
          className="data ds-table"
          data-testid="participants-table"
          columns={["Participant", "Role", "DID", "Context", "State"]}
        >
          {participants.map((p) => (
            <tr
              key={p.participantId}
              data-testid="participant-row"
              data-participant-id={p.participantId}
              className={watch?.id === p.participantId ? "ds-row-new" : undefined}
            >
              <td>
                <strong>{p.displayName}</strong>
                <DemoBadge of={p} />
              </td>
              <td className="small">{roleLabel(p.role) || <span className="muted">—</span>}</td>
              <td className="small wrap">
                <code>{p.did}</code>
              </td>
              <td className="small">
                <code>{p.participantId}</code>
              </td>
              <td>
                <StateBadge state={p.state} />
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </section>
  );
}
