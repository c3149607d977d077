/**
 * Splits `limit` across the groups `keys` (of `sizes`, 0 when absent) as evenly as their sizes allow:
 * a group smaller than its fair share keeps all it has and the rest is shared among the others. The
 * sum never exceeds `limit`.
 */
export function allocateQuota<K extends string>(
  keys: readonly K[],
  sizes: Partial<Record<K, number>>,
  limit: number,
): Map<K, number> {
  const result = new Map<K, number>(keys.map((key) => [key, 0]));
  let remaining = Math.max(0, Math.floor(limit));
  let open = keys
    .map((key) => ({ key, available: sizes[key] ?? 0 }))
    .filter((g) => g.available > 0)
    .sort((a, b) => a.available - b.available);
  while (open.length && remaining > 0) {
    const share = Math.floor(remaining / open.length);
    if (share === 0) {
      // fewer units left than groups: one each, smallest groups first
      for (const g of open.slice(0, remaining)) result.set(g.key, (result.get(g.key) ?? 0) + 1);
      break;
    }
    const next: typeof open = [];
    for (const g of open) {
      const have = result.get(g.key) ?? 0;
      const take = Math.min(share, g.available - have);
      result.set(g.key, have + take);
      remaining -= take;
      if (have + take < g.available) next.push(g);
    }
    open = next;
  }
  return result;
}
