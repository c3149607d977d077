import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Outlet, useLoaderData, useLocation, useParams, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import {
  FACET_LABELS,
  activeFilters,
  filterCatalogue,
  parseCatalogueQuery,
  searchWithout,
  themeLabel,
  type CatalogueQuery,
  type FacetOption,
} from "../../components/catalogue/filters";
import { canPublish } from "../../lib/catalogue/permissions.server";
import { publisherOf } from "../../../server/catalogue";
import { useCatalogueSearch } from "../../components/catalogue/useCatalogueSearch";
import { Badge } from "../../components/ui/Badge";
import { clip, formatNumber, plural } from "../../components/ui/format";
import { requireUser } from "../../session.server";
import { AppLink } from "../../components/ui/app-link";

export const meta: MetaFunction = () => [{ title: "Catalogue · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const url = new URL(request.url);
  const query = parseCatalogueQuery(url.searchParams);
  // each listed under publisherOf: the rule the data holder's home card counts with too
  const all = (await context.services.catalogue.list(user)).map((d) => ({ ...d, publisher: publisherOf(d) }));
  const { results, facets } = filterCatalogue(all, query);
  return {
    query,
    total: all.length,
    facets,
    results: results.map((d) => ({
      id: d.id,
      title: d.title,
      description: clip(d.description ?? "", 240),
      // the whole text as the title: the card shows two lines only, and the text may be cut
      fullDescription: d.description || undefined,
      publisher: d.publisher,
      theme: d.theme ?? null,
      keywords: (d.keywords ?? []).slice(0, 4),
      personalData: !!d.personalData,
      sensitiveData: !!d.sensitiveData,
      recordCount: typeof d.recordCount === "number" ? d.recordCount : null,
    })),
    canPublish: canPublish(user),
    withdrawn: url.searchParams.get("withdrawn"),
  };
}

function FacetSelect({
  name,
  value,
  options,
  anyLabel,
  labelOf = (v) => v,
}: {
  name: keyof CatalogueQuery;
  value: string;
  options: FacetOption[];
  anyLabel: string;
  labelOf?: (value: string) => string;
}) {
  return (
    <label className="filter">
      <span>{FACET_LABELS[name as keyof typeof FACET_LABELS]}</span>
      <select name={name} defaultValue={value} data-testid={`catalogue-filter-${name}`}>
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {labelOf(o.value)} ({formatNumber(o.count)})
          </option>
        ))}
        {value && !options.some((o) => o.value === value) ? (
          <option value={value}>{labelOf(value)} (0)</option>
        ) : null}
      </select>
    </label>
  );
}

function YesNoSelect({
  name,
  value,
  options,
}: {
  name: "personal" | "sensitive";
  value: string;
  options: FacetOption[];
}) {
  const count = (v: string) => options.find((o) => o.value === v)?.count ?? 0;
  return (
    <label className="filter">
      <span>{FACET_LABELS[name]}</span>
      <select name={name} defaultValue={value} data-testid={`catalogue-filter-${name}`}>
        <option value="">Any</option>
        <option value="yes">Yes ({formatNumber(count("yes"))})</option>
        <option value="no">No ({formatNumber(count("no"))})</option>
      </select>
    </label>
  );
}

export default function Catalogue() {
  const { query, total, facets, results, canPublish, withdrawn } = useLoaderData<typeof loader>();
  const params = useParams();
  const location = useLocation();
  const search = useCatalogueSearch();
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const typing = useRef<ReturnType<typeof setTimeout>>();
  const filters = activeFilters(query);

  // keep the (uncontrolled) fields in step with the URL after links such as "Reset" or a chip
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    for (const [key, value] of Object.entries(query)) {
      const el = form.elements.namedItem(key);
      if (
        (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) &&
        el !== document.activeElement
      )
        el.value = value;
    }
  }, [query]);
  useEffect(() => () => clearTimeout(typing.current), []);

  // one search at a time: an explicit submit (Enter, the button) cancels the pending as-you-type
  // search, which would otherwise land after it and undo a link followed in between
  const submitFilters = (form: HTMLFormElement, delay = 0, replace = true) => {
    clearTimeout(typing.current);
    typing.current = setTimeout(() => {
      const params = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (typeof v === "string" && v.trim()) params.set(k, v.trim());
      submit(params, {
        method: "get",
        action: form.getAttribute("action") ?? "/catalogue",
        replace,
        preventScrollReset: true,
      });
    }, delay);
  };
  const publishing = location.pathname === "/catalogue/new";
  const searchAction = params.id && !publishing ? location.pathname : "/catalogue";

  return (
    <section className="catalogue" data-testid="catalogue-page">
      <header className="page-head">
        <div>
          <h1>Dataset catalogue</h1>
          <p className="lead">
            HealthDCAT-AP descriptions of the health datasets published in the dataspace.
          </p>
        </div>
        {canPublish ? (
          <AppLink to={`/catalogue/new${search}`} className="button" data-testid="catalogue-publish-link">
            Publish dataset
          </AppLink>
        ) : null}
      </header>

      {withdrawn ? (
        <p className="notice ok" role="status" data-testid="catalogue-withdrawn-notice">
          Dataset <code>{withdrawn}</code> was withdrawn from the catalogue.
        </p>
      ) : null}

      <Form
        ref={formRef}
        method="get"
        action={searchAction}
        role="search"
        aria-label="Search the catalogue"
        className="card filters"
        data-testid="catalogue-filters"
        onChange={(e) => {
          if (e.target instanceof HTMLSelectElement) submitFilters(e.currentTarget);
        }}
        onSubmit={(e) => {
          e.preventDefault();
          submitFilters(e.currentTarget, 0, false);
        }}
      >
        <label className="filter grow">
          <span>Search</span>
          <input
            type="search"
            name="q"
            defaultValue={query.q}
            placeholder="Title, description or keyword"
            data-testid="catalogue-search"
            onInput={(e) => submitFilters(e.currentTarget.form!, 350)}
          />
        </label>
        <FacetSelect
          name="publisher"
          value={query.publisher}
          options={facets.publisher}
          anyLabel="All publishers"
        />
        <FacetSelect
          name="theme"
          value={query.theme}
          options={facets.theme}
          anyLabel="All themes"
          labelOf={themeLabel}
        />
        <FacetSelect
          name="legalBasis"
          value={query.legalBasis}
          options={facets.legalBasis}
          anyLabel="Any legal basis"
        />
        <YesNoSelect name="personal" value={query.personal} options={facets.personal} />
        <YesNoSelect name="sensitive" value={query.sensitive} options={facets.sensitive} />
        <div className="filter-actions">
          <button type="submit" className="button" data-testid="catalogue-search-submit">
            Search
          </button>
          {filters.length ? (
            <AppLink to="/catalogue" className="button ghost" data-testid="catalogue-reset">
              Reset
            </AppLink>
          ) : null}
        </div>
      </Form>

      <div className="result-summary">
        <p role="status" aria-live="polite" data-testid="catalogue-count">
          <strong>{formatNumber(results.length)}</strong> of {plural(total, "dataset")}
        </p>
        {filters.length ? (
          <ul className="chips" aria-label="Active filters">
            {filters.map((f) => (
              <li key={f.key}>
                <AppLink
                  to={`${location.pathname}${searchWithout(search, f.key)}`}
                  className="chip"
                  aria-label={`Remove filter ${f.label}: ${f.key === "theme" ? themeLabel(f.value) : f.value}`}
                  data-testid={`catalogue-chip-${f.key}`}
                >
                  {f.label}: {f.key === "theme" ? themeLabel(f.value) : f.value} <span aria-hidden>×</span>
                </AppLink>
              </li>
            ))}
          </ul>
        ) : null}
      </div>

      {/* publishing takes the whole width: the list is not shown beside the form */}
      <div className={`master-detail${publishing ? " publishing" : ""}`}>
        {publishing ? null : results.length ? (
          <ol className="result-list" data-testid="catalogue-results">
            {results.map((d) => (
              <li key={d.id}>
                <AppLink
                  to={`/catalogue/${encodeURIComponent(d.id)}${search}`}
                  className={`result card${params.id === d.id ? " selected" : ""}`}
                  aria-current={params.id === d.id ? "true" : undefined}
                  prefetch="intent"
                  preventScrollReset
                  data-testid="catalogue-result"
                  data-dataset-id={d.id}
                >
                  <span className="result-title">{d.title}</span>
                  <span className="muted small">
                    {d.publisher}
                    {d.recordCount !== null ? ` · ${plural(d.recordCount, "record")}` : ""}
                  </span>
                  {d.description ? (
                    <span className="result-desc" title={d.fullDescription}>
                      {d.description}
                    </span>
                  ) : null}
                  <span className="tags">
                    {d.theme ? <Badge tone="info">{themeLabel(d.theme)}</Badge> : null}
                    {d.personalData ? <Badge tone="warn">personal data</Badge> : null}
                    {d.sensitiveData ? <Badge tone="danger">sensitive data</Badge> : null}
                    {d.keywords.map((k) => (
                      <span key={k} className="tag">
                        {k}
                      </span>
                    ))}
                  </span>
                </AppLink>
              </li>
            ))}
          </ol>
        ) : (
          <div className="card empty" data-testid="catalogue-empty">
            <p>No dataset matches {filters.length ? "these filters" : "yet"}.</p>
            {filters.length ? <AppLink to="/catalogue">Show all datasets</AppLink> : null}
          </div>
        )}
        <div className="detail-pane">
          <Outlet />
        </div>
      </div>
    </section>
  );
}
