/**
 * The merge rules of spec section 1: live records first; a demonstration record whose `@id`
 * equals a live `@id` is dropped. For the grouped asset list: a demonstration entry whose
 * `identity` matches a live entry contributes the assets whose `@id` is not there yet; any other
 * demonstration entry is appended whole.
 */

export interface WithId {
  "@id": string;
}

export function mergeById<L extends WithId, D extends WithId>(
  live: readonly L[],
  demo: readonly D[],
): (L | D)[] {
  const seen = new Set(live.map((r) => r["@id"]));
  const out: (L | D)[] = [...live];
  for (const d of demo) {
    if (seen.has(d["@id"])) continue;
    seen.add(d["@id"]);
    out.push(d);
  }
  return out;
}

export interface AssetGroup<A extends WithId = WithId> {
  participantId: string;
  identity: string;
  assets: A[];
}

export function mergeAssetGroups<A extends WithId>(
  live: readonly AssetGroup<A>[],
  demo: readonly AssetGroup<A>[],
): AssetGroup<A>[] {
  const out = live.map((g) => ({ ...g, assets: [...g.assets] }));
  for (const d of demo) {
    const match = out.find((g) => g.identity === d.identity);
    if (match) match.assets = mergeById(match.assets, d.assets);
    else out.push({ ...d, assets: [...d.assets] });
  }
  return out;
}
