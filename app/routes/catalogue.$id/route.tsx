import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useRouteError,
  isRouteErrorResponse,
} from "@remix-run/react";
import { findOrganisation } from "../../lib/personas.server";
import { isApiError, shownInPlace, readForm } from "../../lib/api-errors.server";
import { canWithdraw } from "../../lib/catalogue/permissions.server";
import { themeLabel } from "../../components/catalogue/filters";
import { publisherOf } from "../../../server/catalogue";
import { NOTICE_KEYS, useCatalogueSearch } from "../../components/catalogue/useCatalogueSearch";
import { Badge } from "../../components/ui/Badge";
import { ExternalLink } from "../../components/ui/ExternalLink";
import { formatNumber } from "../../components/ui/format";
import { requireRole, requireUser } from "../../session.server";
import {
  APPLICANT_ROLES,
  DATASPACE_ROLES,
  GRAPH_ROLES,
  PUBLISHER_ROLES,
  mayAny,
  organisationSlugOf,
} from "../../lib/access.server";
import { offersOfDataset } from "../../lib/catalogue/offers.server";
import { AppLink } from "../../components/ui/app-link";
import { routeErrorText } from "../../components/route-kit/route-error";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.dataset.title ?? "Dataset"} · Catalogue · Health Dataspace Hub` },
];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const dataset = await context.services.catalogue.get(params.id ?? "", user);
  if (!dataset)
    throw new Response(`Dataset ${params.id} is not in the catalogue.`, {
      status: 404,
      statusText: "Not Found",
    });
  const url = new URL(request.url);
  const withdrawable = canWithdraw(user, dataset);
  // distributions and data services: HealthDCAT-AP neighbours of the dataset in layer l2
  const related = await context.services.graph.relationships({
    id: dataset.id,
    types: ["HAS_DISTRIBUTION", "SERVES"],
    direction: "both",
    limit: 50,
  });
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const distributions = related
    .filter((r) => r.type === "HAS_DISTRIBUTION" && r.direction === "out")
    .map(({ node: n }) => ({
      id: n.id,
      title: text(n.properties.title) ?? n.id,
      format: text(n.properties.format),
      mediaType: text(n.properties.mediaType),
      accessRights: text(n.properties.accessRights),
      conformsTo: list(n.properties.conformsTo),
    }));
  const dataServices = related
    .filter((r) => r.type === "SERVES" && r.direction === "in")
    .map(({ node: n }) => ({
      id: n.id,
      title: text(n.properties.title) ?? n.id,
      endpointUrl: text(n.properties.endpointUrl),
    }));
  // who offers this dataset in the dataspace: the way to ask for access (assets ↔ datasets, both ways)
  const access = mayAny(user, DATASPACE_ROLES)
    ? { ...(await offersOfDataset(context, dataset.id)), own: organisationSlugOf(user) ?? null }
    : null;
  return {
    access,
    mayApply: mayAny(user, APPLICANT_ROLES),
    dataset: {
      ...dataset,
      publisher: publisherOf(dataset),
      holderName: dataset.holder ? (findOrganisation(dataset.holder)?.displayName ?? dataset.holder) : null,
    },
    distributions,
    dataServices,
    canWithdraw: withdrawable,
    confirming: withdrawable && url.searchParams.get("confirm") === "withdraw",
    created: url.searchParams.has("created"),
    seesGraph: mayAny(user, GRAPH_ROLES),
  };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, PUBLISHER_ROLES);
  const form = await readForm(request);
  if (form.get("intent") !== "withdraw") return { error: "Unknown action." };
  try {
    await context.services.catalogue.remove(params.id ?? null, user);
  } catch (e) {
    if (isApiError(e) && [400, 403, 404, 409].includes(e.status))
      return shownInPlace({ error: e.message }, e.status);
    throw e;
  }
  const back = new URLSearchParams(String(form.get("search") ?? ""));
  for (const k of NOTICE_KEYS) back.delete(k);
  back.set("withdrawn", params.id ?? "");
  return redirect(`/catalogue?${back.toString()}`);
}

function Field({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="field-row" data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const none = <span className="muted">not stated</span>;

/**
 * How to get this dataset: each asset of the dataspace drawn from it, with "Request access" into the
 * negotiation (provider and asset chosen); for health data about people in secondary use, first the
 * data permit application with the dataset ticked (a contract for it needs the permit, Art. 68).
 */
function RequestAccess({
  datasetId,
  healthData,
  access,
  mayApply,
}: {
  datasetId: string;
  healthData: boolean;
  access: ReturnType<typeof useLoaderData<typeof loader>>["access"];
  mayApply: boolean;
}) {
  const apply = `/applications?dataset=${encodeURIComponent(datasetId)}#apply-form`;
  return (
    <section className="dataset-access" aria-labelledby="dataset-access-title" data-testid="dataset-access">
      <h3 id="dataset-access-title">Request access</h3>
      {healthData && mayApply ? (
        <p data-testid="dataset-permit-note">
          Health data about people, for secondary use: a contract for it needs a data permit of the health
          data access body that names your organisation and this dataset.{" "}
          <AppLink to={apply} className="button ghost" data-testid="dataset-apply-permit">
            Apply for a data permit
          </AppLink>
        </p>
      ) : null}
      {access ? (
        access.error ? (
          <p className="notice">The dataspace&apos;s offers could not be read: {access.error}</p>
        ) : access.offers.length === 0 ? (
          <p className="muted" data-testid="dataset-no-offer">
            No participant offers this dataset in the dataspace yet.
          </p>
        ) : (
          <ul className="plain dist-list" data-testid="dataset-offers">
            {access.offers.map((o) => (
              <li key={`${o.providerId}/${o.assetId}`} data-testid="dataset-offer" data-asset-id={o.assetId}>
                <strong>{o.assetName}</strong>
                <span className="muted small">offered by {o.providerName}</span>
                {o.providerId === access.own ? (
                  <AppLink to="/share" className="small" data-testid="dataset-own-offer">
                    Your own offer: see Share data
                  </AppLink>
                ) : (
                  <AppLink
                    to={`/negotiate?provider=${encodeURIComponent(o.providerId)}&asset=${encodeURIComponent(o.assetId)}`}
                    className="button"
                    data-testid="dataset-request-access"
                    aria-label={`Request access to ${o.assetName} from ${o.providerName}`}
                  >
                    Request access
                  </AppLink>
                )}
              </li>
            ))}
          </ul>
        )
      ) : null}
    </section>
  );
}
const shortUri = (u: string) => u.replace(/^https?:\/\//, "").replace(/\/$/, "");

export default function DatasetDetail() {
  const {
    dataset: d,
    distributions,
    dataServices,
    canWithdraw,
    confirming,
    created,
    seesGraph,
    access,
    mayApply,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const search = useCatalogueSearch();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "withdraw";
  const confirmSearch = new URLSearchParams(search);
  confirmSearch.set("confirm", "withdraw");

  return (
    <article className="card dataset-detail" data-testid="dataset-detail" aria-labelledby="dataset-title">
      {created ? (
        <p className="notice ok" role="status" data-testid="dataset-created-notice">
          Published. The dataset is now in the catalogue.
        </p>
      ) : null}
      <header className="detail-head">
        <div>
          <h2 id="dataset-title" data-testid="dataset-title">
            {d.title}
          </h2>
          <p className="muted">
            {d.publisher} · <code>{d.id}</code>
          </p>
        </div>
        <AppLink
          to={`/catalogue${search}`}
          className="close"
          aria-label="Close the dataset"
          data-testid="dataset-close"
        >
          ×
        </AppLink>
      </header>
      <p className="tags">
        {d.theme ? <Badge tone="info">{themeLabel(d.theme)}</Badge> : null}
        <Badge tone={d.personalData ? "warn" : "neutral"}>
          {d.personalData ? "personal data" : "no personal data"}
        </Badge>
        <Badge tone={d.sensitiveData ? "danger" : "neutral"}>
          {d.sensitiveData ? "sensitive data" : "no sensitive data"}
        </Badge>
      </p>
      {d.description ? <p className="description">{d.description}</p> : null}

      <h3>HealthDCAT-AP metadata</h3>
      <dl className="fields" data-testid="dataset-fields">
        <Field label="Identifier" testId="dataset-field-id">
          <code>{d.id}</code>
        </Field>
        <Field label="Publisher" testId="dataset-field-publisher">
          {d.publisher}
        </Field>
        <Field label="Licence" testId="dataset-field-license">
          {d.license ? <ExternalLink href={d.license}>{shortUri(d.license)}</ExternalLink> : none}
        </Field>
        <Field label="Dataset type" testId="dataset-field-datasetType">
          {d.datasetType ? (
            <ExternalLink href={d.datasetType}>{shortUri(d.datasetType).split("/").pop()}</ExternalLink>
          ) : (
            none
          )}
        </Field>
        <Field label="Legal basis" testId="dataset-field-legalBasis">
          {d.legalBasis ?? none}
        </Field>
        <Field label="Purpose" testId="dataset-field-purpose">
          {d.purpose ?? none}
        </Field>
        <Field label="Record count" testId="dataset-field-recordCount">
          {typeof d.recordCount === "number" ? (
            <>
              {formatNumber(d.recordCount)} <span className="muted small">declared by the publisher</span>
            </>
          ) : (
            none
          )}
        </Field>
        <Field label="Population coverage" testId="dataset-field-populationCoverage">
          {d.populationCoverage ?? none}
        </Field>
        <Field label="Personal data" testId="dataset-field-personalData">
          {d.personalData ? "yes" : "no"}
        </Field>
        <Field label="Sensitive data" testId="dataset-field-sensitiveData">
          {d.sensitiveData ? "yes" : "no"}
        </Field>
        <Field label="Conforms to" testId="dataset-field-conformsTo">
          {d.conformsTo?.length ? (
            <ul className="plain">
              {d.conformsTo.map((u) => (
                <li key={u}>
                  <ExternalLink href={u}>{shortUri(u)}</ExternalLink>
                </li>
              ))}
            </ul>
          ) : (
            none
          )}
        </Field>
        <Field label="Keywords" testId="dataset-field-keywords">
          {d.keywords?.length ? (
            <span className="tags">
              {d.keywords.map((k) => (
                <AppLink key={k} to={`/catalogue?q=${encodeURIComponent(k)}`} className="tag">
                  {k}
                </AppLink>
              ))}
            </span>
          ) : (
            none
          )}
        </Field>
        <Field label="Theme" testId="dataset-field-theme">
          {d.theme ? <ExternalLink href={d.theme}>{themeLabel(d.theme)}</ExternalLink> : none}
        </Field>
        {d.holderName ? (
          <Field label="Data holder" testId="dataset-field-holder">
            {d.holderName}
          </Field>
        ) : null}
      </dl>

      {distributions.length ? (
        <>
          <h3>Distributions</h3>
          <ul className="plain dist-list" data-testid="dataset-distributions">
            {distributions.map((x) => (
              <li key={x.id}>
                <strong>{x.title}</strong>
                <span className="muted small">
                  {[
                    x.format,
                    x.mediaType,
                    x.accessRights ? `access: ${shortUri(x.accessRights).split("/").pop()}` : null,
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {dataServices.length ? (
        <>
          <h3>Data services</h3>
          <ul className="plain dist-list" data-testid="dataset-services">
            {dataServices.map((x) => (
              <li key={x.id}>
                <strong>{x.title}</strong>
                {x.endpointUrl ? (
                  <span className="muted small">
                    endpoint <code>{x.endpointUrl}</code>
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      {access || mayApply ? (
        <RequestAccess
          datasetId={d.id}
          healthData={!!(d.personalData || d.sensitiveData)}
          access={access}
          mayApply={mayApply}
        />
      ) : null}

      <div className="actions">
        {seesGraph ? (
          <AppLink
            to={`/graph?focus=${encodeURIComponent(d.id)}`}
            className="button ghost"
            data-testid="dataset-open-graph"
          >
            Show in knowledge graph
          </AppLink>
        ) : null}
        {canWithdraw && !confirming ? (
          <Link
            to={`?${confirmSearch.toString()}`}
            className="button danger-ghost"
            preventScrollReset
            data-testid="dataset-withdraw"
          >
            Withdraw…
          </Link>
        ) : null}
      </div>

      {actionData?.error ? (
        <p className="notice error" role="alert" data-testid="dataset-withdraw-error">
          {actionData.error}
        </p>
      ) : null}

      {confirming ? (
        <Form
          method="post"
          className="confirm"
          data-testid="dataset-withdraw-confirm"
          aria-labelledby="withdraw-q"
        >
          <p id="withdraw-q">
            <strong>Withdraw “{d.title}”?</strong> Data users will no longer find it in the catalogue. This
            cannot be undone.
          </p>
          <input type="hidden" name="intent" value="withdraw" />
          <input type="hidden" name="search" value={search.replace(/^\?/, "")} />
          <div className="actions">
            <button
              type="submit"
              className="button danger"
              disabled={busy}
              data-testid="dataset-withdraw-submit"
              autoFocus
            >
              {busy ? "Withdrawing…" : "Withdraw dataset"}
            </button>
            <AppLink
              to={`/catalogue/${encodeURIComponent(d.id)}${search}`}
              className="button ghost"
              preventScrollReset
              data-testid="dataset-withdraw-cancel"
            >
              Cancel
            </AppLink>
          </div>
        </Form>
      ) : null}
    </article>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const search = useCatalogueSearch();
  return (
    <div className="card" role="alert" data-testid="dataset-error">
      <h2>
        {isRouteErrorResponse(error) && error.status === 404 ? "Dataset not found" : "Something went wrong"}
      </h2>
      <p>{routeErrorText(error, "This dataset could not be shown.")}</p>
      <AppLink to={`/catalogue${search}`}>Back to the list</AppLink>
    </div>
  );
}
