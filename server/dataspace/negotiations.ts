import {
  badGateway,
  describeError,
  isApiError,
  notFound,
  serviceUnavailable,
  storeError,
} from "../http/errors";
import { didOfParticipant } from "./assets";
import {
  NO_PERMIT_REGISTER,
  organisationOfContext,
  permitForAnonymisedData,
  permitMissing,
  type PermitRef,
} from "./permits";
import {
  defaultDatasets,
  termsOfAsset,
  type AssetTerms,
  DSP_PROTOCOL,
  MANAGEMENT_CONTEXT,
  querySpec,
} from "../dataspace-protocol";
import { createKeptByInputs, deepFrozen } from "../http/kept/kept";
import { presentString } from "../http/handler";
import { normaliseCounterPartyAddress } from "./address";
import { resolveProviderAddress } from "./provider-address";
import { offeredRules, summariseCatalog } from "./catalog";
import type { DemoRecord } from "./demo-records";
import { mergeById } from "./merge";
import { operationDeadline, record, type DataspaceRuntime } from "./runtime";
import { callerMistake, describeUpstream, liveOrNull, notFoundOr502, or502 } from "./failures";
import type { Catalog, ConnectorNegotiation, IdResponse } from "./upstream-schemas";
import { missingFields } from "../http/field-errors";

/** Contract negotiations (spec section 4, Negotiations): list, provider catalogue, start, read. */

export const PARTICIPANT_ID_REQUIRED = "participantId query parameter is required";
export const PROVIDER_DID_REQUIRED = "providerDid is required for catalog fetch";
export const NEGOTIATION_FIELDS_REQUIRED = "participantId, counterPartyAddress, and assetId are required";
export const OFFER_ID_REQUIRED =
  "offerId is required: fetch the provider catalog first (GET /api/negotiations?catalog=true&participantId=…&providerDid=…) and use the @id of one of its odrl:hasPolicy offers";

export const NOT_IN_CATALOGUE = (assetId: string, datasets: readonly string[]) =>
  `None of the datasets of ${assetId} is in the catalogue (${datasets.join(", ")}): a dataset withdrawn from it, or never published, is not contracted for`;

export interface NegotiationRequest {
  participantId: string;
  counterPartyAddress: string;
  counterPartyId?: string;
  providerDid?: string;
  offerId?: string;
  policyId?: string;
  assetId: string;
}

/** Checks a NegotiationRequest body; 400 with the spec's texts. */
export function parseNegotiationRequest(body: Record<string, unknown>): NegotiationRequest {
  const participantId = presentString(body.participantId);
  const counterPartyAddress = presentString(body.counterPartyAddress);
  const assetId = presentString(body.assetId);
  if (!participantId || !counterPartyAddress || !assetId)
    throw missingFields({ participantId, counterPartyAddress, assetId }, NEGOTIATION_FIELDS_REQUIRED);
  const offerId = presentString(body.offerId);
  const policyId = presentString(body.policyId);
  if (!offerId && !policyId) throw missingFields({ offerId }, OFFER_ID_REQUIRED);
  return {
    participantId,
    counterPartyAddress,
    assetId,
    offerId,
    policyId,
    counterPartyId: presentString(body.counterPartyId),
    providerDid: presentString(body.providerDid),
  };
}

/**
 * The ContractRequest sent to the connector: DSP 2025-1, an ODRL Offer whose `@id` is the offer
 * (or legacy policy) id, assigned by the provider DID (else the counter-party id, else ""), with
 * the asset as target and the offered rules (`offered`, read from the provider's catalogue: a
 * connector agrees only to the policy it offered), else the single permission `use`.
 */
export function buildContractRequest(
  req: NegotiationRequest,
  offered?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "ContractRequest",
    counterPartyAddress: normaliseCounterPartyAddress(req.counterPartyAddress, req.counterPartyId),
    protocol: DSP_PROTOCOL,
    policy: {
      "@type": "Offer",
      "@id": req.offerId ?? req.policyId,
      assigner: req.providerDid ?? req.counterPartyId ?? "",
      target: req.assetId,
      ...(offered ?? { permission: [{ action: "use" }] }),
    },
  };
}

/** Live records carry `contractAgreementId`; the spec's Negotiation calls it `contractId`. */
function withContractId(n: ConnectorNegotiation): Record<string, unknown> {
  return n.contractId === undefined && n.contractAgreementId
    ? { ...n, contractId: n.contractAgreementId }
    : n;
}

/**
 * The participant's negotiations (negotiationsOf), kept, frozen (read it only), per set of inputs
 * (server/http/kept `createKeptByInputs`).
 */
export async function listNegotiations(
  rt: DataspaceRuntime,
  participantId: string,
): Promise<readonly Record<string, unknown>[]> {
  // one upstream call with its own time-out: no deadline armed per request (see remainingDeadline)
  const live = await liveOrNull(
    () => rt.connector.listNegotiations(participantId),
    rt.demoRecords,
    "Failed to fetch negotiations",
  );
  const bundled = rt.demo.sharedOf(participantId).negotiations;
  return keptNegotiations(participantId, [live, rt, rt.demoRecords, bundled], () =>
    negotiationsOf(rt, live, bundled),
  );
}

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptNegotiations = /* @__PURE__ */ createKeptByInputs<readonly Record<string, unknown>[]>();

/** the list from its inputs: live records first, the bundle's merged in (or alone when live failed) */
function negotiationsOf(
  rt: DataspaceRuntime,
  live: readonly ConnectorNegotiation[] | null,
  bundled: readonly DemoRecord[],
): readonly Record<string, unknown>[] {
  if (!live) return bundled;
  const records = live.map(withContractId) as (Record<string, unknown> & { "@id": string })[];
  return rt.demoRecords ? mergeById(records, bundled) : records;
}

/** a catalogue request to `counterPartyAddress` (sent as given: callers normalise what they were given) */
function catalogRequestOf(providerDid: string, counterPartyAddress?: string): Record<string, unknown> {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "CatalogRequest",
    counterPartyId: providerDid,
    protocol: DSP_PROTOCOL,
    querySpec: querySpec({ limit: 100 }),
    ...(counterPartyAddress ? { counterPartyAddress } : {}),
  };
}

/**
 * The provider's DSP address for a catalogue request: the caller's `counterPartyAddress` (normalised as
 * a contract request's is), else the one known for the DID (provider-address.ts: an own context's, else
 * the directory entry's), else none (the connector decides).
 */
export async function providerAddressOf(
  rt: DataspaceRuntime,
  providerDid: string,
  counterPartyAddress?: string,
): Promise<string | undefined> {
  if (counterPartyAddress) return normaliseCounterPartyAddress(counterPartyAddress);
  return resolveProviderAddress(rt, providerDid);
}

/**
 * The provider's DCAT catalogue, requested by the consumer's connector from the provider's DSP address
 * (given, or found for its DID: providerAddressOf).
 */
export async function fetchProviderCatalog(
  rt: DataspaceRuntime,
  participantId: string,
  providerDid: string,
  counterPartyAddress?: string,
): Promise<Catalog> {
  const address = await providerAddressOf(rt, providerDid, counterPartyAddress);
  const request = catalogRequestOf(providerDid, address);
  const catalog = await or502(
    () => rt.connector.requestCatalog(participantId, request),
    "Failed to fetch provider catalog",
  );
  // kept by the read cache (frozen: the embedded dataspace's): sent from bytes encoded once
  return Object.isFrozen(catalog) ? keptCatalogs(participantId, [catalog], () => catalog) : catalog;
}
const keptCatalogs = /* @__PURE__ */ createKeptByInputs<Catalog>();

/**
 * The provider's offer of the request's asset, from its catalogue as the consumer's connector fetches
 * it now: the rules offered (undefined when the connector refuses the request or the catalogue holds
 * no such offer: the connector then decides on the fixed `use` permission) and the asset's terms, read
 * from the catalogue dataset (the connector copies the asset's properties into it; none readable: the
 * most restrictive terms). A connector that fails to answer is the spec's 502, not a missing permit.
 */
async function providerOffer(
  rt: DataspaceRuntime,
  req: NegotiationRequest,
  signal?: AbortSignal,
): Promise<{ rules: Record<string, unknown> | undefined; terms: AssetTerms }> {
  const provider = req.providerDid ?? req.counterPartyId;
  const none = { rules: undefined, terms: termsOfAsset(undefined, req.assetId) };
  if (!provider) return none;
  const address = normaliseCounterPartyAddress(req.counterPartyAddress, req.counterPartyId);
  try {
    const catalog = await rt.connector.requestCatalog(
      req.participantId,
      catalogRequestOf(provider, address),
      signal,
    );
    const dataset = summariseCatalog(catalog).datasets.find((d) => d.id === req.assetId);
    return {
      rules: offeredRules(catalog, req.assetId, req.offerId ?? req.policyId ?? ""),
      terms: termsOfAsset(dataset?.raw, req.assetId),
    };
  } catch (e) {
    if (callerMistake(e, { notFound: "", invalid: "" })) return none;
    throw badGateway("Failed to initiate contract negotiation", describeUpstream(e)).because(
      "provider's catalogue not read",
    );
  }
}

/**
 * Those of an asset's `datasets` the catalogue holds (all without one); its default datasets, not
 * published yet, count, as at its registration (assets.ts, 0096).
 */
export async function inCatalogue(
  rt: DataspaceRuntime,
  assetId: string,
  datasets: readonly string[],
): Promise<string[]> {
  const unpublished = defaultDatasets(assetId);
  const held = await Promise.all(
    datasets.map(
      async (d) => !rt.datasetHolder || unpublished.includes(d) || (await rt.datasetHolder(d)) !== undefined,
    ),
  );
  return datasets.filter((_, i) => held[i]);
}

/**
 * The data permit a contract for `assetId` in `participantId`'s name rests on (EHDS Art. 68): the
 * access body's valid permit that names the context's organisation and the asset's dataset; a 403
 * naming the missing permit when there is none, a 404 when the catalogue holds none of the asset's datasets;
 * each refusal carries the reason its audit line gives (ApiError `because`).
 */
async function requiredPermit(
  rt: DataspaceRuntime,
  participantId: string,
  assetId: string,
  terms: AssetTerms,
  signal?: AbortSignal,
): Promise<PermitRef> {
  if (!rt.permits) throw serviceUnavailable(NO_PERMIT_REGISTER).because("permit register unavailable");
  const known = organisationOfContext(participantId);
  const did = await didOfParticipant(rt, participantId, signal);
  const { disclosure } = terms;
  // a dataset withdrawn from the catalogue releases no record (graph-data-source.ts): no contract rests on it (0123)
  const datasets = await inCatalogue(rt, assetId, terms.datasets);
  if (!datasets.length)
    throw notFound(NOT_IN_CATALOGUE(assetId, terms.datasets)).because(
      "none of its datasets in the catalogue",
    );
  const permit = did ? await rt.permits.validFor(did, datasets, disclosure) : undefined;
  if (permit) return permit;
  const organisation = known?.name ?? did ?? participantId;
  // a permit names the organisation and the dataset, but for anonymised data: say so, not "no permit"
  const anonymised =
    did && disclosure !== "aggregate" ? await rt.permits.validFor(did, datasets, "aggregate") : undefined;
  if (anonymised)
    throw permitForAnonymisedData(anonymised.id, organisation, assetId, datasets).because(
      "data permit for anonymised data only",
    );
  throw permitMissing(organisation, assetId, datasets).because("no data permit");
}

export async function startNegotiation(
  rt: DataspaceRuntime,
  req: NegotiationRequest,
  actor = "system",
): Promise<IdResponse> {
  // one time-out for the whole write: the permit's context, the offer and the request share it, so a
  // slow connector answers 502 within UPSTREAM_TIMEOUT_MS, not once per call
  const deadline = operationDeadline(rt);
  let offer: Awaited<ReturnType<typeof providerOffer>>;
  let permit: PermitRef;
  try {
    offer = await providerOffer(rt, req, deadline);
    permit = await requiredPermit(rt, req.participantId, req.assetId, offer.terms, deadline);
  } catch (e) {
    const to = req.providerDid ?? req.counterPartyId ?? req.counterPartyAddress;
    // the refusal's own reason (given where it is made), else what failed on the way
    const why = (isApiError(e) && e.reason) || `not checked: ${describeError(storeError(e) ?? e)}`;
    await record(rt, {
      action: "negotiation.start",
      actor,
      target: `${req.participantId} -> ${to}: ${req.assetId} (${why})`,
      outcome: "failure",
    });
    throw e;
  }
  const body = buildContractRequest(req, offer.rules);
  const target = `${req.participantId} -> ${(body.policy as { assigner: string }).assigner || req.counterPartyAddress}: ${req.assetId}`;
  let response: IdResponse;
  try {
    response = await rt.connector.initiateNegotiation(req.participantId, body, deadline);
  } catch (e) {
    await record(rt, { action: "negotiation.start", actor, target, outcome: "failure" });
    throw (
      callerMistake(e, {
        notFound: "The participant context is not known to the connector",
        invalid: "The connector refused the contract request as invalid",
      }) ?? badGateway("Failed to initiate contract negotiation", describeUpstream(e))
    );
  }
  await rt.contractPermits.record({
    negotiationId: response["@id"],
    participantId: req.participantId,
    assetId: req.assetId,
    permitId: permit.id,
    disclosure: offer.terms.disclosure,
    datasets: offer.terms.datasets,
  });
  await record(rt, {
    action: "negotiation.start",
    actor,
    target: `${target} (${response["@id"]}, data permit ${permit.id})`,
    outcome: "success",
  });
  return response; // the spec: the connector's response (the permit shows on the negotiation's reads)
}

export async function getNegotiation(
  rt: DataspaceRuntime,
  participantId: string,
  id: string,
): Promise<Record<string, unknown>> {
  try {
    const live = await rt.connector.getNegotiation(participantId, id);
    const permitId = await rt.contractPermits.byNegotiation(id);
    return await keptNegotiation(participantId, [live, permitId], () =>
      permitId ? { ...withContractId(live), permitId } : withContractId(live),
    );
  } catch (e) {
    // the bundle's shared, frozen record, as a kept value: encoded once (server/http/kept encoded.ts)
    return deepFrozen(bundledOr404(rt, participantId, id, e));
  }
}

/**
 * One negotiation as answered: kept, frozen (read it only), per the connector's answer as the read
 * cache hands it out and the permit recorded for it, so that it is encoded once while both hold.
 */
const keptNegotiation = /* @__PURE__ */ createKeptByInputs<Record<string, unknown>>();

/**
 * After the connector failed to answer one negotiation: the bundle's record of it when it is the
 * participant's own (shared and frozen: read it only), or the spec's 404 or 502. Another
 * participant's record answers the same 404 as an unknown id.
 */
function bundledOr404(rt: DataspaceRuntime, participantId: string, id: string, e: unknown): DemoRecord {
  const bundled = rt.demoRecords
    ? rt.demo.sharedOf(participantId).negotiations.find((n) => n["@id"] === id)
    : undefined;
  if (bundled) return bundled;
  throw notFoundOr502(e, "Negotiation not found", "Failed to fetch negotiation");
}
