import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { parseNegotiationRequest } from "../../lib/dataspace/inputs.server";
import { useRef } from "react";
import { actingParticipant, apiFailure, loadActing, formText } from "../../lib/dataspace/access.server";
import { catalogView, type CatalogView } from "./catalog.server";
import { providerChoices } from "../../lib/dataspace/providers.server";
import {
  DataspaceHead,
  ErrorNotice,
  ParticipantPicker,
  formatStamp,
  participantQuery,
} from "../../components/dataspace/ui";
import { roleLabel } from "../../components/ui/labels";
import { Badge } from "../../components/ui/Badge";
import { plural } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";
import { fieldMessage, useFocusFirstInvalid } from "../../components/ui/field-errors";
import { formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import type { FormFieldError } from "../../types";
import { AppLink } from "../../components/ui/app-link";
import { datasetsOfAsset } from "../../lib/catalogue/offers.server";
import { Filter } from "../../components/route-kit/Filter";

/**
 * Negotiate (consumer): choose a provider (the own connector's participant contexts and the participant
 * directory's entries, providers.server.ts), fetch its DCAT catalogue over the Dataspace Protocol
 * (GET /api/negotiations?catalog=true), pick one of its ODRL offers and start a contract
 * negotiation (POST /api/negotiations); the negotiation view then follows its states.
 */

export const meta: MetaFunction = () => [{ title: "Negotiate · Dataspace · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ds, participants, participantsError, acting } = await loadActing(request, context);
  const url = new URL(request.url);
  const providers = await providerChoices(context, participants, acting);
  const providerId = url.searchParams.get("provider") ?? "";
  const asset = url.searchParams.get("asset") ?? "";
  const provider = providers.find((p) => p.participantId === providerId) ?? null;

  let catalog: (CatalogView & { fetchedAt: number }) | null = null;
  let catalogError: { error: string; detail: string | null } | null = null;
  if (providerId && !provider) {
    catalogError = { error: `${providerId} is not a participant you can negotiate with.`, detail: null };
  } else if (provider && acting.participantId) {
    try {
      // no address given: the one known for the DID (the own connector's context, else the directory's)
      const raw = await ds.fetchProviderCatalog(acting.participantId, provider.did);
      const view = catalogView(ds.summariseCatalog(raw), provider.did);
      // negotiated at the catalogue's DSP endpoint (dcat:service), else where the catalogue was asked
      const endpointUrl = view.endpointUrl || ((await ds.providerAddressOf(provider.did)) ?? "");
      catalog = { ...view, endpointUrl, fetchedAt: Date.now() };
    } catch (e) {
      catalogError = apiFailure(e);
    }
  }
  // the catalogue datasets each offered asset is drawn from (the other way: a dataset's "Request access")
  const sources: Record<string, { id: string; title: string }[]> = {};
  for (const d of catalog?.datasets ?? []) sources[d.id] = await datasetsOfAsset(context, d.id);
  return {
    sources,
    acting,
    providers,
    participantsError,
    provider,
    asset,
    catalog,
    catalogError,
  };
}

type ActionResult = { error: string; detail: string | null; fields: FormFieldError[] };

const CHOOSE_OFFER = "Choose one of the provider's offers first.";
/** the form's name for a field of POST /api/negotiations: the chosen offer carries the asset and offer ids */
const formFields = (fields: FormFieldError[]): FormFieldError[] =>
  fields
    .map((f) => (f.field === "offerId" || f.field === "assetId" ? { ...f, field: "offer" } : f))
    .filter((f, i, all) => all.findIndex((o) => o.field === f.field) === i);

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionResult | Response> {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const field = formText(await readForm(request));
  const acting = await actingParticipant(ds, user, field("participant") || null, "DATA_USER");
  if (!acting.participantId)
    return { error: acting.reason ?? "No participant context", detail: null, fields: [] };
  let assetId = "";
  let offerId = "";
  try {
    const chosen: unknown = JSON.parse(field("offer") || "null");
    if (Array.isArray(chosen) && chosen.length === 2) [assetId, offerId] = chosen.map(String);
  } catch {
    /* no offer chosen */
  }
  if (!offerId)
    return { error: CHOOSE_OFFER, detail: null, fields: [{ field: "offer", message: CHOOSE_OFFER }] };
  try {
    const negotiation = await ds.startNegotiation(
      parseNegotiationRequest({
        participantId: acting.participantId,
        counterPartyAddress: field("counterPartyAddress"),
        counterPartyId: field("provider"),
        providerDid: field("providerDid"),
        offerId,
        assetId,
      }),
      user.username,
    );
    const id = String(negotiation["@id"] ?? "");
    return redirect(`/negotiations/${encodeURIComponent(id)}${participantQuery(acting)}`);
  } catch (e) {
    const f = apiFailure(e);
    return { error: f.error, detail: f.detail, fields: formFields(formFieldErrorsOf(e)) };
  }
}

function StepHead({ n, title, className }: { n: number; title: string; className?: string }) {
  return (
    <h2 className={className}>
      <span className="ds-step-no" aria-hidden>
        {n}
      </span>
      {title}
    </h2>
  );
}

export default function Negotiate() {
  const { acting, providers, participantsError, provider, asset, catalog, catalogError, sources } =
    useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const fetching = navigation.state === "loading" && navigation.location?.pathname === "/negotiate";
  const submitting = navigation.state === "submitting" && navigation.formAction?.startsWith("/negotiate");
  const keep = acting.canChoose && acting.participantId ? acting.participantId : "";
  const preselected = catalog?.datasets.find((d) => d.id === asset);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, result);
  const offerError = fieldMessage(result, "offer");

  return (
    <section className="ds-page" data-testid="negotiate-page">
      <DataspaceHead
        title="Negotiate a contract"
        aside={
          <AppLink to={`/negotiations${participantQuery(acting)}`} className="button ghost">
            My negotiations
          </AppLink>
        }
      >
        Fetch a provider&apos;s catalogue over the Dataspace Protocol, choose one of its offers and negotiate
        a contract agreement for the data.
      </DataspaceHead>
      <ParticipantPicker
        acting={acting}
        label="Negotiate as"
        keep={{ provider: provider?.participantId ?? "" }}
      />
      {acting.reason ? <p className="notice">{acting.reason}</p> : null}
      <ErrorNotice error={participantsError ? { error: participantsError } : null} />

      <ol className="ds-steps">
        <li className="card ds-step-card">
          <StepHead n={1} title="Choose a provider" />
          <Form method="get" className="ds-inline" data-testid="negotiate-provider-form">
            {keep ? <input type="hidden" name="participant" value={keep} /> : null}
            <Filter label="Provider" grow>
              <select
                name="provider"
                defaultValue={provider?.participantId ?? ""}
                required
                data-testid="negotiate-provider"
              >
                <option value="" disabled>
                  Choose a participant…
                </option>
                {providers.map((p) => (
                  <option key={p.participantId} value={p.participantId}>
                    {p.displayName}
                    {p.role ? ` — ${roleLabel(p.role)}` : ""}
                  </option>
                ))}
              </select>
            </Filter>
            <button
              type="submit"
              className="button"
              data-testid="negotiate-fetch-catalog"
              disabled={fetching}
            >
              {fetching ? "Fetching…" : catalog ? "Fetch again" : "Fetch catalogue"}
            </button>
          </Form>
          {provider ? (
            <p className="muted small ds-did">
              Provider DID <code className="wrap">{provider.did}</code>
            </p>
          ) : null}
        </li>

        <li className="card ds-step-card" aria-busy={fetching}>
          <StepHead n={2} title="Pick an offer" />
          <ErrorNotice error={catalogError} testId="negotiate-catalog-error">
            <p className="small">Check that the provider is reachable and try again.</p>
          </ErrorNotice>
          {!provider && !catalogError ? (
            <p className="muted">Choose a provider and fetch its catalogue to see what it offers.</p>
          ) : null}
          {catalog && provider ? (
            <Form ref={formRef} method="post" data-testid="negotiate-catalog" className="ds-catalog">
              <input type="hidden" name="participant" value={keep} />
              <input type="hidden" name="provider" value={provider.participantId} />
              <input type="hidden" name="providerDid" value={catalog.providerDid} />
              <input type="hidden" name="counterPartyAddress" value={catalog.endpointUrl} />
              <p className="ds-catalog-meta">
                <strong>{provider.displayName}</strong> offers {plural(catalog.datasets.length, "dataset")} ·
                fetched {formatStamp(catalog.fetchedAt)}
                <br />
                <span className="muted small">
                  DSP endpoint <code className="wrap">{catalog.endpointUrl || "not given"}</code>
                </span>
              </p>
              {asset && !preselected ? (
                <p className="notice" data-testid="negotiate-asset-missing">
                  The catalogue of {provider.displayName} has no offer for <code>{asset}</code>; choose
                  another dataset.
                </p>
              ) : null}
              {catalog.datasets.length === 0 ? (
                <p className="notice">This provider offers no datasets to you at the moment.</p>
              ) : (
                <div
                  role="group"
                  aria-label="Offers"
                  aria-invalid={offerError ? true : undefined}
                  aria-describedby={offerError ? "negotiate-offer-error" : undefined}
                >
                  <ul className="ds-dataset-list">
                    {catalog.datasets.map((d) => (
                      <li
                        key={d.id}
                        className={`ds-dataset${d.id === asset ? " highlighted" : ""}`}
                        data-testid="negotiate-dataset"
                        data-asset-id={d.id}
                      >
                        <div className="ds-dataset-head">
                          <h3>{d.name}</h3>
                          {d.contentType ? <Badge tone="neutral">{d.contentType}</Badge> : null}
                        </div>
                        <p className="muted small">
                          <code>{d.id}</code>
                        </p>
                        {d.description ? <p className="ds-desc">{d.description}</p> : null}
                        {sources[d.id]?.length ? (
                          <p className="small" data-testid="negotiate-dataset-sources">
                            From the catalogue:{" "}
                            {sources[d.id].map((c, i) => (
                              <span key={c.id}>
                                {i ? "; " : ""}
                                <AppLink to={`/catalogue/${encodeURIComponent(c.id)}`}>{c.title}</AppLink>
                              </span>
                            ))}
                          </p>
                        ) : null}
                        {d.offers.length === 0 ? (
                          <p className="muted small">No offer.</p>
                        ) : (
                          <fieldset className="ds-offers">
                            <legend className="visually-hidden">Offers for {d.name}</legend>
                            {d.offers.map((o, i) => (
                              <label key={o.id} className="ds-offer">
                                <input
                                  type="radio"
                                  name="offer"
                                  value={JSON.stringify([d.id, o.id])}
                                  defaultChecked={d.id === asset && i === 0}
                                  data-testid="negotiate-offer"
                                  data-asset-id={d.id}
                                />
                                <span>
                                  <strong>
                                    Offer {i + 1}:{" "}
                                    {o.permissions.length
                                      ? `permits ${o.permissions.join("; ")}`
                                      : "no permission stated"}
                                  </strong>
                                  {o.prohibitions.length ? (
                                    <span className="small"> · prohibits {o.prohibitions.join("; ")}</span>
                                  ) : null}
                                  {o.obligations.length ? (
                                    <span className="small"> · requires {o.obligations.join("; ")}</span>
                                  ) : null}
                                  <span className="muted small ds-offer-id wrap">{o.id}</span>
                                  <details className="small">
                                    <summary>ODRL policy</summary>
                                    <pre>{JSON.stringify(o.policy, null, 2)}</pre>
                                  </details>
                                </span>
                              </label>
                            ))}
                          </fieldset>
                        )}
                      </li>
                    ))}
                  </ul>
                  {offerError ? (
                    <span id="negotiate-offer-error" className="field-error" data-testid="field-error-offer">
                      {offerError}
                    </span>
                  ) : null}
                </div>
              )}
              <div className="ds-submit-bar">
                <StepHead n={3} title="Negotiate" className="ds-inline-heading" />
                <p className="muted small">
                  Your connector sends a contract request for the chosen offer to {provider.displayName}; the
                  negotiation then runs between the two connectors.
                </p>
                <button
                  type="submit"
                  className="button"
                  data-testid="negotiate-submit"
                  disabled={submitting || catalog.datasets.length === 0}
                >
                  {submitting ? "Sending the contract request…" : "Start negotiation"}
                </button>
              </div>
              <ErrorNotice error={result && "error" in result ? result : null} testId="negotiate-error" />
            </Form>
          ) : null}
        </li>
      </ol>
    </section>
  );
}
