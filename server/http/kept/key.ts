/**
 * The text of a key: a kind, then each part as `length:text` (a string), `-` (undefined) or JSON
 * (anything else, e.g. a query), so no two different keys share a text whatever their ids hold.
 */
export function keyText(kind: string, ...parts: readonly unknown[]): string {
  let k = kind;
  for (const p of parts)
    k += typeof p === "string" ? `|${p.length}:${p}` : p === undefined ? "|-" : `|j${JSON.stringify(p)}`;
  return k;
}
