import type { AppLoadContext } from "@remix-run/node";
import { findOrganisation } from "../../../server/auth/personas";
import { termsOfAsset } from "../../../server/dataspace-protocol";
import { isApiError } from "../../../server/http/errors";
import { str } from "../dataspace/records.server";

/**
 * Catalogue datasets and dataspace assets, linked both ways by the one rule the permit check uses:
 * the datasets an asset is drawn from, as its terms at the connector name them (`termsOfAsset`,
 * server/dataspace-protocol/asset-terms.ts).
 */

export interface DatasetOffer {
  /** the provider's participant context, as the negotiate view takes it (`?provider=`) */
  providerId: string;
  providerName: string;
  assetId: string;
  assetName: string;
}

/** the assets of every participant that offer this dataset, or why they cannot be listed */
export async function offersOfDataset(
  context: AppLoadContext,
  datasetId: string,
): Promise<{ offers: DatasetOffer[]; error: string | null }> {
  try {
    const groups = await context.services.dataspace.listAssetGroups();
    const offers: DatasetOffer[] = [];
    for (const g of groups)
      for (const a of g.assets) {
        const assetId = str(a["@id"]);
        if (!assetId || !termsOfAsset(a, assetId).datasets.includes(datasetId)) continue;
        offers.push({
          providerId: g.participantId,
          providerName: findOrganisation(g.participantId)?.displayName ?? g.participantId,
          assetId,
          assetName: str(a.name) || assetId,
        });
      }
    return { offers, error: null };
  } catch (e) {
    if (isApiError(e)) return { offers: [], error: e.message };
    throw e;
  }
}

/** the catalogue datasets an asset is drawn from (those in the catalogue), with their titles */
export async function datasetsOfAsset(
  context: AppLoadContext,
  assetId: string,
): Promise<{ id: string; title: string }[]> {
  const out: { id: string; title: string }[] = [];
  let asset: Record<string, unknown> | undefined;
  try {
    const groups = await context.services.dataspace.listAssetGroups();
    asset = groups.flatMap((g) => g.assets).find((a) => a["@id"] === assetId);
  } catch (e) {
    if (!isApiError(e)) throw e;
  }
  for (const id of termsOfAsset(asset, assetId).datasets) {
    const d = await context.services.catalogue.get(id);
    if (d) out.push({ id: d.id, title: d.title });
  }
  return out;
}
