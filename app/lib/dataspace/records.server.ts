import type { Dataspace } from "../../../server/dataspace";
import { assetNames, counterPartyName, type AssetBook, type NameBook } from "../../../server/dataspace/names";

/**
 * Connector records (negotiations, transfers, assets) reduced to what the views show. Records
 * are loose JSON-LD objects from the connector or the demonstration fixtures: every field is
 * optional and read defensively.
 */

type Rec = Record<string, unknown>;
/** a connector record's text field, or "" */
export const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** display names by DID and by context id, from the participant list (the one lookup the task list reads too) */
export { partyNames as nameBook, type NameBook } from "../../../server/dataspace/names";

/**
 * The asset names of the dataspace (server/dataspace/names.ts `assetNames`, the one lookup the task
 * list reads too); an empty book when the asset lists cannot be had (titles then show the id).
 */
export async function assetBook(ds: Pick<Dataspace, "listAssetGroups">): Promise<AssetBook> {
  try {
    return assetNames(await ds.listAssetGroups());
  } catch {
    // names are a courtesy: the list still shows every record, by id
    return new Map();
  }
}

/** "FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin": what a person reads as a record's title */
function titleOf(assetId: string, counterParty: string, assets?: AssetBook): string {
  const asset = (assetId && assets?.get(assetId)) || assetId || "An asset";
  return counterParty && counterParty !== "unknown" ? `${asset} with ${counterParty}` : asset;
}

export function toNegotiationView(r: Rec, book?: NameBook, assets?: AssetBook) {
  const counterPartyId = str(r.counterPartyId);
  const counterPartyAddress = str(r.counterPartyAddress);
  const name = counterPartyName(counterPartyId, counterPartyAddress, book);
  return {
    // the asset's name and the counter-party's name; the ids stay in their own fields
    title: titleOf(str(r.assetId), name, assets),
    assetName: assets?.get(str(r.assetId)) ?? str(r.assetId),
    id: str(r["@id"]),
    state: str(r.state),
    type: str(r.type),
    assetId: str(r.assetId),
    counterPartyId,
    counterPartyName: name,
    counterPartyAddress,
    contractId: str(r.contractId) || str(r.contractAgreementId),
    errorDetail: str(r.errorDetail),
    createdAt: num(r.createdAt),
    stateTimestamp: num(r.stateTimestamp),
    demo: r._demo === true,
  };
}

/** a transfer names its contract `contractId` only (a negotiation's `contractAgreementId` is not its contract) */
export function toTransferView(r: Rec, book?: NameBook, assets?: AssetBook) {
  return {
    ...toNegotiationView(r, book, assets),
    contractId: str(r.contractId),
    transferType: str(r.transferType),
  };
}

export function toAssetView(a: Rec) {
  const props = (a.properties && typeof a.properties === "object" ? a.properties : {}) as Rec;
  const da = (a.dataAddress && typeof a.dataAddress === "object" ? a.dataAddress : {}) as Rec;
  return {
    id: str(a["@id"]),
    name: str(a.name) || str(a["@id"]),
    description: str(a.description),
    contentType: str(a.contenttype),
    version: str(props.version),
    dataAddressType: str(da.type),
    baseUrl: str(da.baseUrl),
    demo: a._demo === true,
  };
}

export type NegotiationView = ReturnType<typeof toNegotiationView>;
export type TransferView = ReturnType<typeof toTransferView>;
export type AssetView = ReturnType<typeof toAssetView>;

/** newest first by the state timestamp (else creation), records without either last */
export function newestFirst<T extends { stateTimestamp: number | null; createdAt: number | null }>(
  list: T[],
): T[] {
  return [...list].sort(
    (a, b) => (b.stateTimestamp ?? b.createdAt ?? 0) - (a.stateTimestamp ?? a.createdAt ?? 0),
  );
}
