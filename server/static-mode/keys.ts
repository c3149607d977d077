/**
 * The key of a recorded call: its arguments in canonical JSON (object keys sorted, undefined
 * dropped), with a signed-in user replaced by `{ "$persona": username }` so a call recorded for
 * a persona's session answers the same persona in static mode, and a URL by its path and query.
 */

export type Canonical = null | boolean | number | string | Canonical[] | { [k: string]: Canonical };

function isUser(v: object): v is { username: string; roles: unknown[]; sub: string } {
  const o = v as Record<string, unknown>;
  return typeof o.username === "string" && typeof o.sub === "string" && Array.isArray(o.roles);
}

function isContainer(o: Record<string, unknown>): boolean {
  return "config" in o && "sessions" in o && "runtime" in o;
}

export function canonical(value: unknown, seen: WeakSet<object> = new WeakSet()): Canonical | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  // a request URL: the path and query only (the origin differs between recording and replay)
  if (value instanceof URL) return { $url: value.pathname + value.search };
  if (typeof value !== "object") return undefined;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => canonical(v, seen) ?? null);
    // the service container handed to a service (it is the same in every call); asked with `in` only
    if (isContainer(value as Record<string, unknown>)) return { $services: true };
    if (isUser(value)) return { $persona: value.username };
    const out: Record<string, Canonical> = {};
    for (const k of Object.keys(value).sort()) {
      const c = canonical((value as Record<string, unknown>)[k], seen);
      if (c !== undefined) out[k] = c;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** canonical arguments; trailing undefined arguments are dropped so f(x) and f(x, undefined) agree */
export function canonicalArgs(args: readonly unknown[]): Canonical[] {
  const out = args.map((a) => canonical(a) ?? null);
  while (out.length && out[out.length - 1] === null && args[out.length - 1] === undefined) out.pop();
  return out;
}

export function callKey(args: readonly unknown[]): string {
  return JSON.stringify(canonicalArgs(args));
}

/** how a call is named in messages: catalogue.get("x") */
export function describeCall(service: string, method: string, args: readonly unknown[]): string {
  const shown = canonicalArgs(args)
    .map((a) => JSON.stringify(a))
    .join(", ");
  return `${service}.${method}(${shown.length > 300 ? `${shown.slice(0, 297)}...` : shown})`;
}
