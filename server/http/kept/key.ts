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

const identities = new WeakMap<object, number>();
let lastIdentity = 0;

/**
 * A version of an object compared by identity: a number per object, the same for as long as it lives.
 * For upstream answers as the read cache hands them out (the same frozen array while it is valid; a
 * write through this server, the embedded dataspace's change counter or the time to live make a new one).
 */
export function identityOf(value: object): number {
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = ++lastIdentity));
  return id;
}

/**
 * The versions of a kept answer's upstream inputs: each input's identity (null, a failed lookup, is 0).
 * A string, number or boolean stands for itself. Undefined when an array among them is not frozen: one caller's own, not a shared answer of the read
 * cache, so the answer is built each time.
 */
export function inputVersions(inputs: readonly unknown[]): (string | number)[] | undefined {
  const versions: (string | number)[] = [];
  for (const input of inputs) {
    if (input === null || input === undefined) versions.push(0);
    else if (typeof input !== "object") versions.push(`=${String(input)}`);
    else if (Array.isArray(input) && !Object.isFrozen(input)) return undefined;
    else versions.push(identityOf(input));
  }
  return versions;
}
