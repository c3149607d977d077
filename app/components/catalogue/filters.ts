import type { HealthDataset } from "../../types";

/**
 * Search and facet filtering of the catalogue (run in the loader; the state lives in the URL
 * query so links are shareable and the page works without JavaScript).
 */

export const FACETS = ["publisher", "theme", "legalBasis", "personal", "sensitive"] as const;
export type Facet = (typeof FACETS)[number];

/** the search text and each facet's value: "" any (personal and sensitive: "", "yes" or "no") */
export type CatalogueQuery = { q: string } & Record<Facet, string>;

export const FACET_LABELS: Record<Facet, string> = {
  publisher: "Publisher",
  theme: "Theme",
  legalBasis: "Legal basis",
  personal: "Personal data",
  sensitive: "Sensitive data",
};

export function parseCatalogueQuery(params: URLSearchParams): CatalogueQuery {
  const one = (k: string) => (params.get(k) ?? "").trim().slice(0, 200);
  const yesNo = (k: string) => (["yes", "no"].includes(one(k)) ? one(k) : "");
  return {
    q: one("q"),
    publisher: one("publisher"),
    theme: one("theme"),
    legalBasis: one("legalBasis"),
    personal: yesNo("personal"),
    sensitive: yesNo("sensitive"),
  };
}

const FACET_VALUE: Record<Facet, (d: HealthDataset) => string> = {
  // filled by the loader with server/catalogue's publisherOf (the publisher, else the holder)
  publisher: (d) => d.publisher ?? "",
  theme: (d) => d.theme ?? "",
  legalBasis: (d) => d.legalBasis ?? "",
  personal: (d) => (d.personalData ? "yes" : "no"),
  sensitive: (d) => (d.sensitiveData ? "yes" : "no"),
};

function matchesText(d: HealthDataset, q: string): boolean {
  if (!q) return true;
  const hay = [d.id, d.title, d.description ?? "", ...(d.keywords ?? [])].join("\n").toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => hay.includes(term));
}

function matches(d: HealthDataset, query: CatalogueQuery, except?: Facet): boolean {
  if (!matchesText(d, query.q)) return false;
  for (const f of FACETS) {
    if (f === except) continue;
    const want = query[f];
    if (want && FACET_VALUE[f](d) !== want) return false;
  }
  return true;
}

export interface FacetOption {
  value: string;
  count: number;
}

/** results, and per facet the options with counts under all the other active filters */
export function filterCatalogue(all: readonly HealthDataset[], query: CatalogueQuery) {
  const results = all.filter((d) => matches(d, query)).sort((a, b) => a.title.localeCompare(b.title, "en"));
  const facets = {} as Record<Facet, FacetOption[]>;
  for (const f of FACETS) {
    const counts = new Map<string, number>();
    for (const d of all) {
      const v = FACET_VALUE[f](d);
      if (v) counts.set(v, (counts.get(v) ?? 0) + (matches(d, query, f) ? 1 : 0));
    }
    facets[f] = [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) =>
        f === "personal" || f === "sensitive"
          ? b.value.localeCompare(a.value)
          : a.value.localeCompare(b.value, "en"),
      );
  }
  return { results, facets };
}

export function activeFilters(query: CatalogueQuery) {
  return (["q", ...FACETS] as const).flatMap((key) =>
    query[key] ? [{ key, label: key === "q" ? "Search" : FACET_LABELS[key], value: query[key] }] : [],
  );
}

/** the query string without some keys (for "remove this filter" chips) */
export function searchWithout(search: string, ...keys: string[]): string {
  const p = new URLSearchParams(search);
  for (const key of keys) p.delete(key);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** the EU data themes (publications.europa.eu authority table "data-theme"), by code */
export const EU_THEMES: Record<string, string> = {
  AGRI: "Agriculture, fisheries, forestry and food",
  ECON: "Economy and finance",
  EDUC: "Education, culture and sport",
  ENER: "Energy",
  ENVI: "Environment",
  GOVE: "Government and public sector",
  HEAL: "Health",
  INTR: "International issues",
  JUST: "Justice, legal system and public safety",
  REGI: "Regions and cities",
  SOCI: "Population and society",
  TECH: "Science and technology",
  TRAN: "Transport",
};

/** the theme vocabulary of the publishing form: each EU data theme's URI with its label */
export const THEME_OPTIONS = Object.entries(EU_THEMES).map(([code, label]) => ({
  value: `http://publications.europa.eu/resource/authority/data-theme/${code}`,
  label,
}));

/** a readable name for a theme: EU data-theme URIs by their label, other URIs by their last segment */
export function themeLabel(theme: string): string {
  const m = /\/data-theme\/([A-Z_]+)$/.exec(theme);
  if (m) return EU_THEMES[m[1]] ?? m[1];
  if (/^https?:\/\//.test(theme))
    return decodeURIComponent(theme.replace(/\/$/, "").split(/[/#]/).pop() ?? theme);
  return theme;
}
