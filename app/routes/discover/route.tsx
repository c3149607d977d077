import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { apiFailure, hasRole, isAdmin, listChoices } from "../../lib/dataspace/access.server";
import { toAssetView } from "../../lib/dataspace/records.server";
import { DataspaceHead, DemoBadge, ErrorNotice } from "../../components/dataspace/ui";
import { roleLabel } from "../../components/ui/labels";
import { Badge } from "../../components/ui/Badge";
import { clip, formatNumber, plural } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES, STAFF_ROLES, settle } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { Filter } from "../../components/route-kit/Filter";

/**
 * Discover: one search over what the dataspace offers — the data assets each participant's
 * connector exposes (GET /api/assets, grouped) and the HealthDCAT-AP datasets of the catalogue —
 * with a way from each to the provider's offers.
 */

export const meta: MetaFunction = () => [{ title: "Discover data · Dataspace · Health Dataspace Hub" }];

const DATASET_LIMIT = 12;

const matches = (tokens: string[], ...fields: (string | undefined | null)[]) => {
  if (!tokens.length) return true;
  const hay = fields.filter(Boolean).join(" ").toLowerCase();
  return tokens.every((t) => hay.includes(t));
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, STAFF_ROLES);
  const ds = context.services.dataspace;
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").trim();
  const providerFilter = url.searchParams.get("provider") ?? "";
  const asked = url.searchParams.get("show");
  const show = asked === "assets" || asked === "datasets" ? asked : "all";
  const tokens = q.toLowerCase().split(/\s+/).filter(Boolean);

  const canNegotiate = hasRole(user, DATASPACE_ROLES);
  const [choices, groupsResult, datasetsResult, me] = await Promise.all([
    listChoices(ds),
    settle(ds.listAssetGroups(), apiFailure),
    context.services.catalogue.list(user),
    canNegotiate && !isAdmin(user) ? ds.participantForUser(user).catch(() => null) : Promise.resolve(null),
  ]);
  const participants = choices.participants;
  const byId = new Map(participants.map((p) => [p.participantId, p]));
  const byDid = new Map(participants.map((p) => [p.did, p]));

  const providers = new Map<string, { id: string; name: string; assets: number; datasets: number }>();
  const countProvider = (id: string, name: string, kind: "assets" | "datasets") => {
    const e = providers.get(id) ?? { id, name, assets: 0, datasets: 0 };
    e[kind] += 1;
    providers.set(id, e);
  };

  const assets = (groupsResult.ok ? groupsResult.value : []).flatMap((g) => {
    const p = byId.get(g.participantId) ?? byDid.get(g.identity);
    const provider = {
      id: p?.participantId ?? g.participantId,
      name: p?.displayName ?? g.participantId,
      role: p?.role ?? "",
      did: g.identity,
    };
    return g.assets.flatMap((raw) => {
      const asset = toAssetView(raw);
      if (!matches(tokens, asset.name, asset.description, asset.id, asset.contentType, provider.name))
        return [];
      countProvider(provider.id, provider.name, "assets");
      return providerFilter && provider.id !== providerFilter ? [] : [{ provider, asset }];
    });
  });
  assets.sort(
    (a, b) => a.provider.name.localeCompare(b.provider.name) || a.asset.name.localeCompare(b.asset.name),
  );

  const datasets = datasetsResult
    .filter((d) =>
      matches(tokens, d.title, d.description, d.publisher, d.theme, (d.keywords ?? []).join(" "), d.id),
    )
    .map((d) => {
      const holder = d.holder ? byId.get(d.holder) : undefined;
      return {
        id: d.id,
        title: d.title,
        description: clip(d.description ?? "", 220),
        // the whole text, as the cut one's title
        fullDescription: d.description && d.description.length > 220 ? d.description : undefined,
        publisher: d.publisher ?? holder?.displayName ?? "",
        providerId: holder?.participantId ?? "",
        providerName: holder?.displayName ?? "",
        recordCount: typeof d.recordCount === "number" ? d.recordCount : null,
        keywords: (d.keywords ?? []).slice(0, 4),
      };
    })
    .filter((d) => {
      if (d.providerId) countProvider(d.providerId, d.providerName, "datasets");
      return !providerFilter || d.providerId === providerFilter;
    })
    .sort((a, b) => a.title.localeCompare(b.title));

  return {
    q,
    show,
    providerFilter,
    providers: [...providers.values()].sort((a, b) => a.name.localeCompare(b.name)),
    assets,
    datasets: datasets.slice(0, DATASET_LIMIT),
    datasetTotal: datasets.length,
    assetsError: groupsResult.ok ? null : groupsResult.error,
    participantsError: choices.error,
    canNegotiate,
    me: me?.id ?? null,
  };
}

export default function Discover() {
  const data = useLoaderData<typeof loader>();
  const { q, show, providerFilter, providers, assets, datasets, datasetTotal, canNegotiate, me } = data;
  const submit = useSubmit();
  const navigation = useNavigation();
  const typing = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(typing.current), []);
  const searching = navigation.state === "loading" && navigation.location?.pathname === "/discover";
  const send = (form: HTMLFormElement, delay: number) => {
    clearTimeout(typing.current);
    typing.current = setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), delay);
  };
  const showAssets = show !== "datasets";
  const showDatasets = show !== "assets";

  return (
    <section className="ds-page" data-testid="discover-page">
      <DataspaceHead title="Discover data">
        What the participants of the dataspace offer: the data assets their connectors share, and the datasets
        described in the HealthDCAT-AP catalogue.
      </DataspaceHead>

      <Form
        method="get"
        role="search"
        aria-label="Search the dataspace"
        className="card filters"
        data-testid="discover-filters"
        // a submitted search needs no pending type-ahead submission after it
        onSubmit={() => clearTimeout(typing.current)}
        onChange={(e) => {
          if (e.target instanceof HTMLSelectElement) send(e.currentTarget, 0);
        }}
      >
        <Filter label="Search" grow>
          <input
            type="search"
            name="q"
            defaultValue={q}
            placeholder="Name, description, content type or provider"
            data-testid="discover-search"
            onInput={(e) => send(e.currentTarget.form!, 350)}
          />
        </Filter>
        <Filter label="Provider">
          <select name="provider" defaultValue={providerFilter} data-testid="discover-provider">
            <option value="">All providers</option>
            {providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({formatNumber(p.assets + p.datasets)})
              </option>
            ))}
          </select>
        </Filter>
        <Filter label="Show">
          <select name="show" defaultValue={show} data-testid="discover-show">
            <option value="all">Assets and datasets</option>
            <option value="assets">Assets only</option>
            <option value="datasets">Datasets only</option>
          </select>
        </Filter>
        <div className="filter-actions">
          <button type="submit" className="button" data-testid="discover-submit">
            Search
          </button>
          {q || providerFilter || show !== "all" ? (
            <AppLink to="/discover" className="button ghost">
              Reset
            </AppLink>
          ) : null}
        </div>
      </Form>

      <p
        role="status"
        aria-live="polite"
        className="muted"
        data-testid="discover-count"
        aria-busy={searching}
      >
        {showAssets ? plural(assets.length, "asset") : null}
        {showAssets && showDatasets ? " · " : null}
        {showDatasets ? plural(datasetTotal, "dataset") : null}
        {q ? ` matching “${q}”` : ""}
      </p>
      <ErrorNotice error={data.assetsError} testId="discover-assets-error" />
      <ErrorNotice error={data.participantsError ? { error: data.participantsError } : null} />

      {showAssets ? (
        <section aria-labelledby="discover-assets-title">
          <h2 id="discover-assets-title">Data assets offered by participants</h2>
          {assets.length === 0 ? (
            <p className="card empty muted">No asset matches.</p>
          ) : (
            <ul className="ds-card-grid" data-testid="discover-assets">
              {assets.map(({ provider, asset }) => {
                const own = me !== null && provider.id === me;
                return (
                  <li
                    key={`${provider.id}/${asset.id}`}
                    className="card ds-asset-card"
                    data-testid="discover-asset"
                    data-asset-id={asset.id}
                    data-provider-id={provider.id}
                  >
                    <div className="ds-card-head">
                      <h3>{asset.name}</h3>
                      {asset.contentType ? <Badge tone="neutral">{asset.contentType}</Badge> : null}
                    </div>
                    <p className="ds-provider-line">
                      <strong>{provider.name}</strong>
                      {provider.role ? (
                        <span className="muted small"> · {roleLabel(provider.role)}</span>
                      ) : null}
                      <DemoBadge of={asset} />
                    </p>
                    {asset.description ? <p className="ds-desc">{asset.description}</p> : null}
                    <p className="muted small">
                      <code>{asset.id}</code>
                      {asset.version ? ` · version ${asset.version}` : ""}
                    </p>
                    <div className="ds-card-actions">
                      {canNegotiate && !own ? (
                        <AppLink
                          className="button small"
                          to={`/negotiate?provider=${encodeURIComponent(provider.id)}&asset=${encodeURIComponent(asset.id)}`}
                          data-testid="discover-negotiate"
                          aria-label={`Negotiate for ${asset.name} with ${provider.name}`}
                        >
                          Negotiate
                        </AppLink>
                      ) : own ? (
                        <span className="muted small">Your own asset</span>
                      ) : null}
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      ) : null}

      {showDatasets ? (
        <section aria-labelledby="discover-datasets-title">
          <h2 id="discover-datasets-title">Datasets in the catalogue</h2>
          {datasets.length === 0 ? (
            <p className="card empty muted">No dataset matches.</p>
          ) : (
            <ul className="ds-card-grid" data-testid="discover-datasets">
              {datasets.map((d) => (
                <li
                  key={d.id}
                  className="card ds-dataset-card"
                  data-testid="discover-dataset"
                  data-dataset-id={d.id}
                >
                  <h3>
                    <AppLink to={`/catalogue/${encodeURIComponent(d.id)}`}>{d.title}</AppLink>
                  </h3>
                  <p className="ds-provider-line">
                    <strong>{d.publisher || "Unknown publisher"}</strong>
                    {d.recordCount !== null ? (
                      <span className="muted small"> · {plural(d.recordCount, "record")}</span>
                    ) : null}
                  </p>
                  {d.description ? (
                    <p className="ds-desc" title={d.fullDescription}>
                      {d.description}
                    </p>
                  ) : null}
                  {d.keywords.length ? (
                    <p className="tags">
                      {d.keywords.map((k) => (
                        <span key={k} className="tag">
                          {k}
                        </span>
                      ))}
                    </p>
                  ) : null}
                  {canNegotiate && d.providerId && d.providerId !== me ? (
                    <div className="ds-card-actions">
                      <AppLink
                        className="button ghost small"
                        to={`/negotiate?provider=${encodeURIComponent(d.providerId)}`}
                        data-testid="discover-dataset-offers"
                      >
                        Offers of {d.providerName}
                      </AppLink>
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          {datasetTotal > datasets.length ? (
            <p>
              <AppLink
                to={`/catalogue${q ? `?q=${encodeURIComponent(q)}` : ""}`}
                data-testid="discover-more-datasets"
              >
                All {formatNumber(datasetTotal)} matching datasets in the catalogue →
              </AppLink>
            </p>
          ) : null}
        </section>
      ) : null}
    </section>
  );
}
