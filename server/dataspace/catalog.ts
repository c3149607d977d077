import { asArray, DCAT_NAMESPACE, DSPACE_NAMESPACE, ODRL_NAMESPACE, term } from "../dataspace-protocol";

/**
 * Reading a provider's DCAT catalogue (DSP 2025-1, compacted JSON-LD): its datasets with their
 * `odrl:hasPolicy` offers, and the DSP endpoint of the provider. For views that let a consumer
 * pick an offer to negotiate.
 */

type Obj = Record<string, unknown>;

export interface CatalogOffer {
  /** the offer id to send as `offerId` */
  id: string;
  policy: Obj;
}

export interface CatalogDataset {
  id: string;
  name: string;
  description: string;
  offers: CatalogOffer[];
  raw: Obj;
}

export interface CatalogSummary {
  providerDid: string | undefined;
  /** the provider's DSP address (`dcat:service` endpoint URL), usable as counterPartyAddress */
  endpointUrl: string | undefined;
  datasets: CatalogDataset[];
}

const dcat = (o: Obj | undefined, name: string) => term(o, name, DCAT_NAMESPACE, "dcat");
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

export function summariseCatalog(catalog: Obj): CatalogSummary {
  const rawDatasets = catalog["dcat:dataset"] ?? catalog.dataset ?? catalog[`${DCAT_NAMESPACE}dataset`];
  const datasets = asArray(rawDatasets as Obj | Obj[] | undefined)
    .filter(isObj)
    .map((d) => {
      const rawOffers = d["odrl:hasPolicy"] ?? d.hasPolicy ?? d[`${ODRL_NAMESPACE}hasPolicy`];
      const offers = asArray(rawOffers as Obj | Obj[] | undefined)
        .filter(isObj)
        .filter((o) => typeof o["@id"] === "string")
        .map((o) => ({ id: o["@id"] as string, policy: o }));
      const id = String(d["@id"] ?? d.id ?? "");
      const name = term(d, "name") ?? term(d, "title", "http://purl.org/dc/terms/", "dct") ?? id;
      const description =
        term(d, "description") ?? term(d, "description", "http://purl.org/dc/terms/", "dct") ?? "";
      return { id, name: String(name), description: String(description), offers, raw: d };
    });
  const service = asArray((catalog["dcat:service"] ?? catalog.service) as Obj | Obj[] | undefined).find(
    isObj,
  );
  const endpointUrl = service ? (dcat(service, "endpointURL") as string | undefined) : undefined;
  const providerDid = term(catalog, "participantId", DSPACE_NAMESPACE, "dspace") as string | undefined;
  return { providerDid, endpointUrl, datasets };
}

/** an offer id's definition-and-asset part (EDC: `<definition>:<asset>:<uuid>`, base64 parts) */
const offerStem = (id: string) => id.split(":").slice(0, -1).join(":");

/**
 * The rules of the offer to request for `assetId` (`offerId`, else an offer of the same contract
 * definition: a provider issues fresh offer ids on each catalogue request): `permission`,
 * `prohibition`, `obligation` as the provider wrote them, without the `odrl:` prefix and without empty
 * lists. A connector agrees only when the requested policy equals the offered one. Undefined when the
 * catalogue holds no such offer.
 */
export function offeredRules(catalog: Obj, assetId: string, offerId: string): Obj | undefined {
  const dataset = summariseCatalog(catalog).datasets.find((d) => d.id === assetId);
  if (!dataset) return undefined;
  const offer =
    dataset.offers.find((o) => o.id === offerId) ??
    (offerStem(offerId) ? dataset.offers.find((o) => offerStem(o.id) === offerStem(offerId)) : undefined);
  if (!offer) return undefined;
  const rules: Obj = {};
  for (const name of ["permission", "prohibition", "obligation"]) {
    const list = asArray(
      (offer.policy[name] ?? offer.policy[`odrl:${name}`] ?? offer.policy[`${ODRL_NAMESPACE}${name}`]) as
        Obj | Obj[] | undefined,
    );
    if (list.length > 0) rules[name] = list;
  }
  return rules;
}
