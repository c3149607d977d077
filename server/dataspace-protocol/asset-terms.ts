import { isObject } from "./protocol";

/**
 * The terms of a dataspace asset (issue 34, decision 0065): which catalogue datasets it is drawn
 * from (the data permit must name one of them, EHDS Art. 68) and what it discloses (k-anonymous
 * aggregates or records pseudonymised per permit). They are metadata of the asset itself, as the
 * connector holds it: two properties under the hub's namespace in the asset's `properties` (EDC
 * management API), which a connector keeps as written and shows again in its DCAT catalogue. A
 * contract reads them from the provider's catalogue offer, the graph bridge from the provider's
 * asset; an asset without readable terms is treated by the most restrictive ones.
 */

export const HUB_TERMS_NAMESPACE = "https://w3id.org/health-dataspace-hub/v0.0.1/ns/";
export const DISCLOSURE_PROPERTY = `${HUB_TERMS_NAMESPACE}disclosure`;
export const DATASETS_PROPERTY = `${HUB_TERMS_NAMESPACE}datasets`;

/** what an asset delivers: aggregates (k-anonymous counts) or pseudonymised records */
export type Disclosure = "aggregate" | "pseudonymised";
export const DISCLOSURES: readonly Disclosure[] = ["aggregate", "pseudonymised"];
/** the most restrictive disclosure: what an asset without terms (or with unreadable ones) delivers */
export const MOST_RESTRICTIVE: Disclosure = "aggregate";

export interface AssetTerms {
  datasets: string[];
  disclosure: Disclosure;
}

type Json = Record<string, unknown>;

/** the string values of a JSON-LD property as a connector may give it back (plain, `@value`, lists) */
function stringsOf(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(stringsOf);
  if (isObject(v)) {
    if ("@value" in v) return stringsOf(v["@value"]);
    if ("@list" in v) return stringsOf(v["@list"]);
  }
  return [];
}

/** a property of the asset or catalogue dataset, by its full IRI, under `properties` or at the top */
function propertyOf(asset: Json, iri: string): unknown {
  const props = isObject(asset.properties) ? asset.properties : undefined;
  return props?.[iri] ?? asset[iri];
}

/** the datasets an asset of this id is drawn from when it names none: the marketplace naming `asset-x` ↔ `dataset-x`, or its own id */
export function defaultDatasets(assetId: string): string[] {
  const datasets = [assetId];
  if (assetId.startsWith("asset-")) datasets.push(`dataset-${assetId.slice("asset-".length)}`);
  return datasets;
}

/**
 * The terms of an asset (a connector's asset, or a dataset of its catalogue, whose properties the
 * connector copies from the asset): unknown or missing disclosure → the most restrictive.
 */
export function termsOfAsset(asset: Json | undefined, assetId: string): AssetTerms {
  if (!asset) return { datasets: defaultDatasets(assetId), disclosure: MOST_RESTRICTIVE };
  const named = stringsOf(propertyOf(asset, DISCLOSURE_PROPERTY))[0];
  const disclosure = DISCLOSURES.includes(named as Disclosure) ? (named as Disclosure) : MOST_RESTRICTIVE;
  const datasets = [...new Set(stringsOf(propertyOf(asset, DATASETS_PROPERTY)).filter((d) => d))];
  return { datasets: datasets.length > 0 ? datasets : defaultDatasets(assetId), disclosure };
}

/** the properties that carry the terms on the asset created at the connector */
export function termsProperties(terms: AssetTerms): Json {
  return { [DISCLOSURE_PROPERTY]: terms.disclosure, [DATASETS_PROPERTY]: [...terms.datasets] };
}
