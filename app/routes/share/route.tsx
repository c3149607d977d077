import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useRef, useState } from "react";
import { parseAssetInput } from "../../lib/dataspace/inputs.server";
import { actingParticipant, apiFailure, hasRole, formText } from "../../lib/dataspace/access.server";
import { toAssetView, type AssetView } from "../../lib/dataspace/records.server";
import {
  DataspaceHead,
  DemoBadge,
  ErrorNotice,
  ParticipantPicker,
  participantQuery,
} from "../../components/dataspace/ui";
import { Badge } from "../../components/ui/Badge";
import { plural } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ASSET_WRITE_ROLES, STAFF_ROLES } from "../../lib/access.server";
import {
  Invalid,
  fieldMessage,
  intentFieldMessage,
  useFocusFirstInvalid,
} from "../../components/ui/field-errors";
import { formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import type { FormFieldError } from "../../types";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";
import type { PolicyService } from "../../../server/policies/service";
import type { AssetOffer, Dataspace } from "../../../server/dataspace";
import type { SessionUser } from "../../../server/auth/user";
import { identifierFrom } from "../../components/catalogue/publish";

/**
 * Share data (data holder): register a data asset with the connector (POST /api/assets) — name,
 * description, content type, where the data plane reads it and the participant's policy it is offered
 * under — and see the assets the participant shares (GET /api/assets?participantId=…). With a policy,
 * the hub offers the asset in the provider's catalogue by a contract definition of its own (decision
 * 0108); without one it is registered only, and the page says so. Each asset says under which policies
 * the connector offers it; a data holder offers an asset the hub does not offer yet, and withdraws the
 * hub's offer (decision 0111: the dataspace service directly, no API route).
 */

export const meta: MetaFunction = () => [{ title: "Share data · Dataspace · Health Dataspace Hub" }];

const CONTENT_TYPES = [
  "application/fhir+json",
  "application/json",
  "application/x-ndjson",
  "text/csv",
  "application/parquet",
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, STAFF_ROLES);
  const ds = context.services.dataspace;
  const url = new URL(request.url);
  const acting = await actingParticipant(ds, user, url.searchParams.get("participant"), "DATA_HOLDER");
  let assets: (AssetView & { offers: AssetOffer[] | null })[] = [];
  let policies: string[] = [];
  let error: { error: string; detail: string | null } | null = null;
  let policyError: { error: string; detail: string | null } | null = null;
  let offersError: { error: string; detail: string | null } | null = null;
  if (acting.participantId) {
    let listed: AssetView[] = [];
    try {
      listed = (await ds.listAssets(acting.participantId)).map(toAssetView);
    } catch (e) {
      error = apiFailure(e);
    }
    // a demonstration record is not at the connector: whether it is offered is not known there
    const live = listed.filter((a) => !a.demo).map((a) => a.id);
    let offered: Record<string, AssetOffer[]> | null = null;
    try {
      offered = live.length ? await ds.offersOf(acting.participantId, live) : {};
    } catch (e) {
      offersError = apiFailure(e);
    }
    assets = listed.map((a) => ({ ...a, offers: (!a.demo && offered?.[a.id]) || null }));
    try {
      policies = await offerablePolicies(context.services.policies, acting.participantId);
    } catch (e) {
      policyError = apiFailure(e);
    }
  }
  return {
    acting,
    assets,
    error,
    canRegister: hasRole(user, ASSET_WRITE_ROLES) && !!acting.participantId,
    policies,
    policyError,
    offersError,
    created: url.searchParams.get("created"),
    offeredUnder: url.searchParams.get("offered"),
    defaultBaseUrl: `${context.services.config.publicUrl}/internal/graph-bridge/assets/`,
  };
}

/**
 * The participant's policies an asset may be offered under: those of the policies page (the policy
 * service's list) that its connector holds.
 */
async function offerablePolicies(policies: PolicyService, participantId: string): Promise<string[]> {
  const listed = await policies.list(participantId);
  return listed.filter((p) => p.connector.state !== "missing-at-connector").map((p) => p["@id"]);
}

const FIELDS = [
  "assetId",
  "name",
  "description",
  "contentType",
  "addressMode",
  "baseUrl",
  "policyId",
] as const;
type FormValues = Record<(typeof FIELDS)[number], string>;
type ActionResult = { error: string; detail: string | null; values: FormValues; fields: FormFieldError[] };
/** an asset row's offer or withdrawal: its notice (`ok` or `error`), shown in that row */
type OfferResult = {
  intent: "offer" | "withdraw";
  assetId: string;
  policyId: string;
  ok?: string;
  error?: string;
  detail?: string | null;
  fields: FormFieldError[];
};

/** the form's name for a field of POST /api/assets (the data address is the base URL field) */
const formField = (f: FormFieldError): FormFieldError =>
  f.field === "dataAddress" ? { ...f, field: "baseUrl" } : f;

export async function action({
  request,
  context,
}: ActionFunctionArgs): Promise<ActionResult | OfferResult | Response> {
  const user = await requireRole(request, context, ASSET_WRITE_ROLES);
  const ds = context.services.dataspace;
  const field = formText(await readForm(request));
  const acting = await actingParticipant(ds, user, field("participant") || null, "DATA_HOLDER");
  const intent = field("intent");
  if (intent === "offer" || intent === "withdraw") return changeOffer(ds, user, acting, intent, field);
  const values = Object.fromEntries(FIELDS.map((k) => [k, field(k)])) as FormValues;
  if (values.addressMode !== "http") values.addressMode = "default";
  if (!acting.participantId)
    return { error: acting.reason ?? "No participant context", detail: null, values, fields: [] };
  if (values.assetId && !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(values.assetId)) {
    const error =
      "The asset id may hold letters, digits, '.', '_', ':' and '-', and starts with a letter or digit.";
    return { error, detail: null, values, fields: [{ field: "assetId", message: error }] };
  }
  let dataAddress: Record<string, unknown> | undefined;
  if (values.addressMode === "http") {
    if (!/^https?:\/\/\S+$/i.test(values.baseUrl)) {
      const error = "The data address needs an http(s) base URL.";
      return { error, detail: null, values, fields: [{ field: "baseUrl", message: error }] };
    }
    dataAddress = { "@type": "DataAddress", type: "HttpData", baseUrl: values.baseUrl };
  }
  try {
    await ds.createAsset(
      parseAssetInput({
        participantId: acting.participantId,
        ...pick(values, "assetId name description contentType policyId"),
        ...(dataAddress ? { dataAddress } : {}),
      }),
      user.username,
    );
    const q = participantQuery(acting);
    const offered = values.policyId ? `&offered=${encodeURIComponent(values.policyId)}` : "";
    return redirect(`/share${q ? `${q}&` : "?"}created=${encodeURIComponent(values.assetId)}${offered}`);
  } catch (e) {
    const f = apiFailure(e);
    let detail = f.detail;
    if (!detail && (f.status === 409 || f.status === 502)) {
      // a taken id (409), or a connector failure whose reason is not passed on (502): say so when the id is taken
      const existing = await ds.listAssets(acting.participantId).catch(() => []);
      if (existing.some((a) => a["@id"] === values.assetId)) {
        detail = `Your connector already holds an asset with id ${values.assetId}: choose another id.`;
      }
    }
    return { error: f.error, detail, values, fields: formFieldErrorsOf(e).map(formField) };
  }
}

/** An asset row's offer under a policy, or the withdrawal of the hub's offer; bad input changes nothing. */
async function changeOffer(
  ds: Dataspace,
  user: SessionUser,
  acting: { participantId: string | null; reason?: string | null },
  intent: OfferResult["intent"],
  field: (name: string) => string,
): Promise<OfferResult> {
  const assetId = field("assetId");
  const policyId = field("policyId");
  const done = { intent, assetId, policyId, fields: [] };
  if (!acting.participantId) return { ...done, error: acting.reason ?? "No participant context" };
  try {
    if (intent === "offer") {
      await ds.offerAsset(acting.participantId, assetId, policyId, user.username);
      return { ...done, ok: `Asset ${assetId} is now offered in your catalogue under policy ${policyId}.` };
    }
    await ds.withdrawOffer(acting.participantId, assetId, user.username);
    return { ...done, ok: `The hub's offer of asset ${assetId} is withdrawn.` };
  } catch (e) {
    const f = apiFailure(e);
    return { ...done, error: f.error, detail: f.detail, fields: formFieldErrorsOf(e) };
  }
}

export default function Share() {
  const data = useLoaderData<typeof loader>();
  const { acting, assets, error, canRegister, created, offeredUnder, policies, policyError, defaultBaseUrl } =
    data;
  const answer = useActionData<typeof action>() as ActionResult | OfferResult | undefined;
  const result = answer && !("intent" in answer) ? answer : undefined;
  const offerResult = answer && "intent" in answer ? answer : undefined;

  return (
    <section className="ds-page" data-testid="share-page">
      <DataspaceHead title="Share data">
        Register a data asset with your connector and offer it in your catalogue to the participants of the
        dataspace, under one of your policies.
      </DataspaceHead>
      <ParticipantPicker acting={acting} label="Provider" />
      {acting.reason ? <p className="notice">{acting.reason}</p> : null}

      {created && !result ? (
        <p className="notice ok" role="status" data-testid="share-created">
          {offeredUnder ? (
            <>
              Asset <code>{created}</code> is registered and offered in your catalogue under policy{" "}
              <code>{offeredUnder}</code>.
            </>
          ) : (
            <>
              Asset <code>{created}</code> is registered, without an offer: this registration made none, so
              consumers see it only where a contract definition of your connector already selects it.
            </>
          )}
        </p>
      ) : null}

      {canRegister ? (
        <RegisterForm
          key={created ?? ""}
          participant={acting.canChoose ? acting.participantId : null}
          result={result}
          defaultBaseUrl={defaultBaseUrl}
          policies={policies}
          policyError={policyError}
        />
      ) : acting.participantId ? (
        <p className="notice">Only data holders and connector admins register assets.</p>
      ) : null}

      <h2>
        {acting.displayName ? `Assets of ${acting.displayName}` : "Assets"}{" "}
        <span className="muted small">({plural(assets.length, "asset")})</span>
      </h2>
      <ErrorNotice error={error} testId="share-list-error" />
      <ErrorNotice error={data.offersError} testId="share-offers-error" />
      {assets.length === 0 ? (
        <p className="card empty muted">No assets yet.</p>
      ) : (
        <div className="table-wrap card flush">
          <DataTable
            className="data ds-table"
            data-testid="share-assets"
            columns={["Asset", "Offer", "Content type", "Version", "Data address"]}
          >
            {assets.map((a) => (
              <tr
                key={a.id}
                data-testid="share-asset-row"
                data-asset-id={a.id}
                className={a.id === created ? "ds-row-new" : undefined}
              >
                <td>
                  <strong>{a.name}</strong>
                  <DemoBadge of={a} />
                  {a.id === created ? <Badge tone="ok">new</Badge> : null}
                  <br />
                  <code className="small">{a.id}</code>
                  {a.description ? <p className="small ds-desc">{a.description}</p> : null}
                </td>
                <td className="small">
                  <OfferCell
                    participant={acting.canChoose ? acting.participantId : null}
                    assetId={a.id}
                    offers={a.offers}
                    policies={canRegister ? policies : null}
                    result={offerResult?.assetId === a.id ? offerResult : undefined}
                  />
                </td>
                <td className="small">{a.contentType || <span className="muted">—</span>}</td>
                <td className="small">{a.version || <span className="muted">—</span>}</td>
                <td className="small wrap">
                  {a.dataAddressType ? <Badge tone="neutral">{a.dataAddressType}</Badge> : null}{" "}
                  {a.baseUrl ? <code>{a.baseUrl}</code> : null}
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      {acting.participantId ? (
        <p className="muted small">
          Consumers find these assets under <AppLink to="/discover">Discover</AppLink> and negotiate for them
          from your catalogue.
        </p>
      ) : null}
    </section>
  );
}

/**
 * Whether an asset is offered and under which policies; for a data holder, an offer under one of the
 * offerable policies while the hub has none of its own, else the withdrawal of the hub's offer. A
 * contract definition made at the connector is shown, not withdrawn here.
 */
function OfferCell({
  participant,
  assetId,
  offers,
  policies,
  result,
}: {
  participant: string | null;
  assetId: string;
  offers: AssetOffer[] | null;
  policies: string[] | null;
  result: OfferResult | undefined;
}) {
  // the answer's message waits for the reloaded row, so that it never stands beside the row's old state
  const settled = useNavigation().state === "idle";
  if (!offers) return <span className="muted">—</span>;
  const byHub = offers.some((o) => o.byHub);
  const under = [...new Set(offers.map((o) => o.policyId))];
  const hidden = (intent: OfferResult["intent"]) => (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="assetId" value={assetId} />
      {participant ? <input type="hidden" name="participant" value={participant} /> : null}
    </>
  );
  return (
    <div data-testid="share-offer" data-offered={under.length > 0}>
      {under.length ? (
        <>
          Offered under{" "}
          {under.map((p, i) => (
            <span key={p}>
              {i ? ", " : null}
              <code>{p}</code>
            </span>
          ))}
        </>
      ) : (
        <span className="muted">Not offered</span>
      )}
      {offers.some((o) => !o.byHub) ? (
        <p className="muted small">
          {byHub ? "Also by" : "By"} a contract definition made at your connector, not through the hub: the
          hub does not withdraw it.
        </p>
      ) : null}
      {policies && byHub ? (
        <Form method="post" className="ds-inline-form">
          {hidden("withdraw")}
          <button
            type="submit"
            className="button ghost small"
            disabled={!settled}
            data-testid="share-withdraw"
          >
            Withdraw the hub&apos;s offer
          </button>
        </Form>
      ) : null}
      {policies && !byHub && policies.length ? (
        <Form method="post" className="ds-inline-form">
          {hidden("offer")}
          <Invalid message={intentFieldMessage(result, "offer", "policyId")}>
            <select
              name="policyId"
              aria-label={`Policy to offer ${assetId} under`}
              defaultValue={result?.intent === "offer" ? result.policyId : policies[0]}
              data-testid="share-offer-policy"
            >
              {policies.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          </Invalid>{" "}
          <button type="submit" className="button small" disabled={!settled} data-testid="share-offer-submit">
            Offer
          </button>
        </Form>
      ) : null}
      {result?.ok && settled ? (
        <p className="notice ok" role="status" data-testid="share-offer-done">
          {result.ok}
        </p>
      ) : null}
      <ErrorNotice
        error={result?.error ? { error: result.error, detail: result.detail } : null}
        testId="share-offer-error"
      />
    </div>
  );
}

/** The registration form; keyed by the last registered asset, so that each registration starts afresh. */
function RegisterForm({
  participant,
  result,
  defaultBaseUrl,
  policies,
  policyError,
}: {
  participant: string | null;
  result: ActionResult | undefined;
  defaultBaseUrl: string;
  policies: string[];
  policyError: { error: string; detail: string | null } | null;
}) {
  const submitting = useNavigation().state === "submitting";
  const v = result?.values;
  const [mode, setMode] = useState(v?.addressMode ?? "default");
  const idTouched = useRef(!!v?.assetId);
  const idRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, result);
  const bad = (name: string) => fieldMessage(result, name);
  return (
    <Form
      ref={formRef}
      method="post"
      className="card ds-form"
      data-testid="share-form"
      aria-labelledby="share-form-title"
    >
      <h2 id="share-form-title">Register an asset</h2>
      {participant ? <input type="hidden" name="participant" value={participant} /> : null}
      <div className="ds-form-grid">
        <div className="field">
          <label htmlFor="share-name">
            Name{" "}
            <span className="required" aria-hidden>
              *
            </span>
          </label>
          <Invalid message={bad("name")}>
            <input
              id="share-name"
              name="name"
              required
              defaultValue={v?.name}
              maxLength={200}
              data-testid="share-name"
              onInput={(e) => {
                if (!idTouched.current && idRef.current)
                  idRef.current.value = identifierFrom(e.currentTarget.value);
              }}
            />
          </Invalid>
        </div>
        <div className="field">
          <label htmlFor="share-asset-id">
            Asset id{" "}
            <span className="required" aria-hidden>
              *
            </span>
          </label>
          <Invalid message={bad("assetId")}>
            <input
              id="share-asset-id"
              ref={idRef}
              name="assetId"
              required
              pattern="[A-Za-z0-9][A-Za-z0-9._:\-]*"
              defaultValue={v?.assetId}
              aria-describedby="share-asset-id-hint"
              data-testid="share-asset-id"
              onInput={() => {
                idTouched.current = true;
              }}
            />
          </Invalid>
          <span className="hint" id="share-asset-id-hint">
            Unique within your connector; made from the name unless you type one.
          </span>
        </div>
        <div className="field ds-span">
          <label htmlFor="share-description">Description</label>
          <Invalid message={bad("description")}>
            <textarea
              id="share-description"
              name="description"
              rows={3}
              defaultValue={v?.description}
              data-testid="share-description"
            />
          </Invalid>
        </div>
        <div className="field">
          <label htmlFor="share-content-type">Content type</label>
          <Invalid message={bad("contentType")}>
            <input
              id="share-content-type"
              name="contentType"
              list="share-content-types"
              defaultValue={v?.contentType ?? "application/fhir+json"}
              aria-describedby="share-content-type-hint"
              data-testid="share-content-type"
            />
          </Invalid>
          <datalist id="share-content-types">
            {CONTENT_TYPES.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
          <span className="hint" id="share-content-type-hint">
            Empty: application/json.
          </span>
        </div>
        <div className="field ds-span">
          <label htmlFor="share-policy">Offer under policy</label>
          <Invalid message={bad("policyId")}>
            <select
              id="share-policy"
              name="policyId"
              defaultValue={v ? v.policyId : (policies[0] ?? "")}
              aria-describedby="share-policy-hint"
              data-testid="share-policy"
            >
              {policies.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
              <option value="">None: register only, not offered</option>
            </select>
          </Invalid>
          <span className="hint" id="share-policy-hint">
            Your policies at your connector (<AppLink to="/policies">ODRL policies</AppLink>): the asset is
            offered in your catalogue under the one you choose, as its access and contract policy.
          </span>
          <ErrorNotice error={policyError} testId="share-policy-error" />
        </div>
        <fieldset className="checks ds-span">
          <legend>Data address</legend>
          <label className="check">
            <input
              type="radio"
              name="addressMode"
              value="default"
              checked={mode === "default"}
              onChange={() => setMode("default")}
              data-testid="share-address-default"
            />
            <span>
              The hub&apos;s graph bridge{" "}
              <span className="muted small">({defaultBaseUrl}&lt;asset id&gt;)</span>
            </span>
          </label>
          <label className="check">
            <input
              type="radio"
              name="addressMode"
              value="http"
              checked={mode === "http"}
              onChange={() => setMode("http")}
              data-testid="share-address-http"
            />
            <span>An HTTP endpoint of your own (HttpData)</span>
          </label>
          {mode === "http" ? (
            <label className="ds-base-url">
              <span>Base URL</span>
              <Invalid message={bad("baseUrl")}>
                <input
                  type="url"
                  name="baseUrl"
                  required
                  placeholder="https://fhir.example.org/Bundle/cohort"
                  defaultValue={v?.baseUrl}
                  data-testid="share-base-url"
                />
              </Invalid>
            </label>
          ) : null}
        </fieldset>
      </div>
      <ErrorNotice error={result} testId="share-error" />
      <div className="actions">
        <button type="submit" className="button" disabled={submitting} data-testid="share-submit">
          {submitting ? "Registering…" : "Register asset"}
        </button>
        <span className="muted small">Registered as version 1.0.0.</span>
      </div>
    </Form>
  );
}
