import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { GovNav, Outcome, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDate, formatDateTime } from "../../components/ui/format";
import { claimLabel } from "../../components/ui/labels";
import { ACTIONS, DataTable } from "../../components/route-kit/DataTable";
import { requireRole } from "../../session.server";
import {
  CREDENTIAL_REQUEST_ROLES,
  CREDENTIAL_REVOKE_ROLES,
  CREDENTIAL_ROLES,
  settle,
} from "../../lib/access.server";
import {
  clientError,
  failure,
  formFieldErrorsOf,
  missingFields,
  shownInPlace,
  readForm,
} from "../../lib/api-errors.server";
import { Invalid, fieldMessage } from "../../components/ui/field-errors";
import { pick } from "../../lib/pick";
import { isAdmin, ownContext } from "../../lib/dataspace/access.server";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "Credentials · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, CREDENTIAL_ROLES);
  const s = context.services.credentials;
  const canRequest = CREDENTIAL_REQUEST_ROLES.some((r) => user.roles.includes(r));
  const canRevoke = CREDENTIAL_REVOKE_ROLES.some((r) => user.roles.includes(r));
  const [list, definitions, contexts, own] = await Promise.all([
    settle(s.list(user), (e) => failure(e).message),
    s.definitions().catch(() => []),
    canRequest ? s.requestableContexts(user) : Promise.resolve([]),
    // the access body revokes only what its own organisation's context holds, the operator any (0043)
    canRevoke && !isAdmin(user)
      ? ownContext(context.services.dataspace, user).catch(() => undefined)
      : Promise.resolve(undefined),
  ]);
  const revocable = (holder: string | null) => canRevoke && (isAdmin(user) || (!!own && holder === own));
  return {
    credentials: list.ok
      ? list.value.map((c) => ({
          ...pick(c, "id label"),
          type: c.type.filter((t) => t !== "VerifiableCredential").join(", "),
          ...pick(c, "holder participantContextId issuer issuanceDate"),
          subject: Object.entries(c.credentialSubject)
            .filter(([k]) => k !== "id")
            .map(([k, v]) => claimLabel(k, v)),
          status: c.status,
          reason: c.verification.reason,
          checks: Object.entries(c.verification.checks).map(([k, v]) => ({
            name: k,
            ok: v.ok,
            // "valid until 2027-11-29T21:48:25.342Z" reads as every time on the page does
            detail: v.detail.replace(/\b\d{4}-\d{2}-\d{2}T[\d:.]+Z\b/g, (iso) => formatDateTime(iso)),
          })),
          checkedAt: c.verification.checkedAt,
          revocable: revocable(c.participantContextId),
        }))
      : [],
    error: list.ok ? null : list.error,
    definitions: definitions.map((d) => ({
      type: d.credentialType,
      ...pick(d, "label proves"),
      validity: typeof d.validity === "number" ? d.validity : null,
    })),
    contexts,
    canRequest,
    canRevoke,
    organisation: user.organisation,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, CREDENTIAL_ROLES);
  const form = await readForm(request);
  const s = context.services.credentials;
  try {
    if (form.get("intent") === "revoke") {
      await requireRole(request, context, CREDENTIAL_REVOKE_ROLES);
      const id = String(form.get("id") ?? "");
      if (form.get("confirm") !== "yes")
        return { ok: false, message: "Tick the box to confirm the revocation." };
      await s.revoke(id, user);
      return {
        ok: true,
        message: `Revoked ${id}. Its bit in the issuer's status list is set: verification now fails.`,
      };
    }
    await requireRole(request, context, CREDENTIAL_REQUEST_ROLES);
    const participantContextId = String(form.get("participantContextId") ?? "");
    const credentialType = String(form.get("credentialType") ?? "");
    if (!participantContextId || !credentialType)
      throw missingFields(
        { participantContextId, credentialType },
        "participantContextId and credentialType are required",
      );
    const started = await s.request(participantContextId, credentialType, user);
    return {
      ok: true,
      message: `Requested a ${String(started.label)} for ${participantContextId} (process ${String(started.holderPid)}): the issuer issues it in a moment; reload to see it.`,
    };
  } catch (e) {
    const { status, message } = clientError(e);
    return shownInPlace({ ok: false as const, message, fields: formFieldErrorsOf(e) }, status);
  }
}

const STATUS_TONE = { valid: "ok", revoked: "danger", unverified: "warn" } as const;

export default function Credentials() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const revoking = params.get("revoke");
  return (
    <section className="gov">
      <PageHead
        title="Verifiable credentials"
        lead="The credentials that prove dataspace roles: the EHDS participant credential, the data-processing purpose and the data quality label. Each is verified now: issuer, signature, validity and the issuer's revocation list."
      />
      {d.canRevoke && d.canRequest ? <GovNav /> : null}
      <Outcome result={result} />
      {d.error ? <p className="notice error">{d.error}</p> : null}

      <div className="table-wrap card flush">
        <DataTable
          data-testid="credentials"
          columns={["Credential", "Holder", "Issued", "Claims", "Verification", d.canRevoke ? ACTIONS : null]}
        >
          {d.credentials.map((c) => (
            <tr key={c.id} data-testid={`credential-${c.id}`} data-type={c.type}>
              <th scope="row">
                {c.label}
                <div className="small muted wrap">
                  <code>{c.id}</code>
                </div>
              </th>
              <td className="small wrap">
                {c.participantContextId ? <strong>{c.participantContextId}</strong> : null}
                <div>
                  <code>{c.holder}</code>
                </div>
              </td>
              <td className="small nowrap">{formatDate(c.issuanceDate)}</td>
              <td className="small">
                <ul className="plain">
                  {c.subject.map((s) => (
                    <li key={s}>{s}</li>
                  ))}
                </ul>
              </td>
              <td>
                <Badge tone={STATUS_TONE[c.status]} testId="credential-status">
                  {c.status}
                </Badge>
                <details className="small">
                  <summary>checks</summary>
                  <ul className="plain gov-checks">
                    {c.checks.map((k) => (
                      <li key={k.name}>
                        {k.ok ? "✓" : "✗"} <strong>{k.name}</strong>: {k.detail}
                      </li>
                    ))}
                  </ul>
                  <span className="muted">checked {formatDateTime(c.checkedAt)}</span>
                </details>
              </td>
              {d.canRevoke ? (
                <td>
                  {c.status === "revoked" ? (
                    <span className="small muted">revoked</span>
                  ) : !c.revocable ? (
                    <span
                      className="small muted"
                      title="Only the operator revokes another organisation's credential"
                    >
                      another organisation&apos;s
                    </span>
                  ) : revoking === c.id ? (
                    <Form method="post" className="confirm" replace>
                      <input type="hidden" name="intent" value="revoke" />
                      <input type="hidden" name="id" value={c.id} />
                      <label className="check">
                        <input type="checkbox" name="confirm" value="yes" required /> Revoke for good
                      </label>
                      <button type="submit" className="button small danger" disabled={busy}>
                        Revoke
                      </button>
                    </Form>
                  ) : (
                    <a className="button small danger-ghost" href={`?revoke=${encodeURIComponent(c.id)}`}>
                      Revoke…
                    </a>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
          {d.credentials.length === 0 ? (
            <tr>
              <td colSpan={d.canRevoke ? 6 : 5} className="empty">
                No credentials to show{d.canRequest ? "" : ` for ${d.organisation}`}.
              </td>
            </tr>
          ) : null}
        </DataTable>
      </div>

      {d.canRequest ? (
        <Form method="post" className="card gov-form" data-testid="request-form">
          <h2>Request a credential</h2>
          <p className="small muted">
            The participant&apos;s identity hub asks the issuer (DCP issuance); the credential appears above
            once issued.
          </p>
          <input type="hidden" name="intent" value="request" />
          <div className="form-grid">
            <div className="gov-field">
              <label htmlFor="credential-participant">Participant</label>
              <Invalid message={fieldMessage(result, "participantContextId")}>
                <select
                  id="credential-participant"
                  name="participantContextId"
                  required
                  defaultValue={d.contexts[0]?.id}
                >
                  {optionList(d.contexts, (c) => [c.id, `${c.id} (${c.did})`])}
                </select>
              </Invalid>
            </div>
            <div className="gov-field">
              <label htmlFor="credential-type">Credential</label>
              <Invalid message={fieldMessage(result, "credentialType")}>
                <select id="credential-type" name="credentialType" required>
                  {optionList(d.definitions, (def) => [def.type, def.label])}
                </select>
              </Invalid>
            </div>
          </div>
          <ul className="small gov-definitions">
            {d.definitions.map((def) => (
              <li key={def.type}>
                <strong>{def.label}</strong> ({def.type}): proves {def.proves}
                {def.validity ? `; valid ${Math.round(def.validity / 86400)} days` : ""}.
              </li>
            ))}
          </ul>
          <div className="actions">
            <button type="submit" className="button" disabled={busy || d.contexts.length === 0}>
              Request credential
            </button>
          </div>
        </Form>
      ) : null}
    </section>
  );
}
