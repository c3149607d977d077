import { encodedOnce } from "./kept/encoded";
import { heldResponse, plainHeadersOf } from "./node-adapter";

/**
 * The error model: every failure that reaches a client is an ApiError rendered as
 * `{ error, detail? }` JSON. Anything else becomes 500 `{ error: "Internal server error" }`
 * with no stack. ApiError is recognised structurally (isApiError) so that it survives
 * being thrown across separately bundled copies of this module.
 */
export class ApiError extends Error {
  readonly isApiError = true as const;
  /** why it was refused, as the audit line says it (never sent); given where the refusal is made (`because`) */
  reason?: string;
  constructor(
    public readonly status: number,
    message: string,
    public readonly detail?: string,
    public readonly extra?: Record<string, unknown>,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
  because(reason: string): this {
    this.reason = reason;
    return this;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return (
    typeof e === "object" &&
    e !== null &&
    (e as { isApiError?: unknown }).isApiError === true &&
    typeof (e as { status?: unknown }).status === "number"
  );
}

export const badRequest = (error: string, extra?: Record<string, unknown>) =>
  new ApiError(400, error, undefined, extra);
export const unauthorized = (error = "Authentication required") => new ApiError(401, error);
export const forbidden = (error = "Forbidden: your role does not allow this") => new ApiError(403, error);
export const notFound = (error = "Not found") => new ApiError(404, error);
export const conflict = (error: string, extra?: Record<string, unknown>) =>
  new ApiError(409, error, undefined, extra);
export const badGateway = (error: string, detail?: string) => new ApiError(502, error, detail);
export const serviceUnavailable = (error: string) => new ApiError(503, error);

export const JSON_HEADERS = {
  "Content-Type": "application/json; charset=utf-8",
  "Cache-Control": "no-store",
};
/** JSON_HEADERS with lower-case names, as a held answer keeps them (node-adapter.ts) */
const JSON_HELD_HEADERS: Readonly<Record<string, string>> = plainHeadersOf(JSON_HEADERS);

/** `body` as JSON: a kept value (server/http/kept `deepFrozen`) encoded once, any other per request */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const h = headers ? { ...JSON_HELD_HEADERS, ...plainHeadersOf(headers) } : JSON_HELD_HEADERS;
  return heldResponse(encodedOnce(body) ?? JSON.stringify(body), { status, headers: h });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

export function errorResponse(e: unknown): Response {
  if (e instanceof Response) return e;
  if (isApiError(e)) {
    const body: Record<string, unknown> = { error: e.message, ...(e.extra ?? {}) };
    if (e.detail !== undefined) body.detail = e.detail;
    return json(body, e.status, e.headers);
  }
  const store = storeError(e);
  if (store) {
    if (store.status === 409) console.error("[api] unhandled error:", e); // a lost race is worth seeing in the log
    return errorResponse(store);
  }
  console.error("[api] unhandled error:", e);
  return json({ error: "Internal server error" }, 500);
}

export const STORE_BUSY = "The store is busy (locked by another writer); nothing was changed, try again";
export const STORE_FULL = "The store cannot write (disk full or read-only); nothing was changed";
/** the graph database (Neo4j) is not reachable, or still starting: its callers answer 503 at once */
export const GRAPH_UNAVAILABLE = "The graph database is unavailable; try again later";
export const graphUnavailable = () =>
  new ApiError(503, GRAPH_UNAVAILABLE, undefined, undefined, { "Retry-After": "5" });

/**
 * The store's own failure as the ApiError the API and the pages answer with: 503 when it is busy,
 * full, read-only or away, 409 when the write lost a race; undefined for anything else.
 */
export function storeError(e: unknown): ApiError | undefined {
  const message = storeFailure(e);
  if (message) return new ApiError(503, message, undefined, undefined, { "Retry-After": "5" });
  return storeConflict(e);
}

export const STORE_CONFLICT =
  "Another request changed the same record at the same time; nothing was changed, try again";
export const STORE_AWAY = "The store is unavailable; nothing was changed, try again later";

/**
 * A write that lost a race with another request (two instances on one PostgreSQL, or a check then
 * an insert): a unique key taken in between, a serialisation failure or a deadlock. The services
 * check before they write, so this is the race, not bad input: 409, and the transaction was rolled
 * back.
 */
function storeConflict(e: unknown): ApiError | undefined {
  const code = codeOf(e);
  if (!code) return undefined;
  const sqliteUnique = /^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/.test(code);
  const pgRace = code === "23505" || code === "40001" || code === "40P01";
  return sqliteUnique || pgRace ? new ApiError(409, STORE_CONFLICT) : undefined;
}

const codeOf = (e: unknown) => {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
};

/**
 * A store failure that is not a bug, recognised by the driver's error code; the write's transaction
 * was rolled back. Embedded SQLite: busy or locked, disk full, I/O error, read-only file. PostgreSQL
 * (SQLSTATE): lock not available or a statement time-out, disk full or read-only, out of resources,
 * shut down, connection exception.
 */
function storeFailure(e: unknown): string | undefined {
  const code = codeOf(e);
  if (!code) return undefined;
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return STORE_BUSY;
  if (/^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/.test(code)) return STORE_FULL;
  if (code === "55P03" || code === "57014") return STORE_BUSY; // lock_not_available, statement/lock time-out
  if (code === "53100" || code === "25006") return STORE_FULL; // disk_full, read_only_sql_transaction
  if (/^(53[0-9A-Z]{3}|57P0[1-4]|08[0-9A-Z]{3})$/.test(code)) return STORE_AWAY; // resources, shutdown, connection
  return undefined;
}

/** what a failed probe or check says: the error's message, or `timedOut` for a time-out */
export const failureText = (e: unknown, timedOut: string) =>
  e instanceof Error ? (e.name === "TimeoutError" ? timedOut : e.message) : String(e);

/** A short, single-line description of an upstream failure for `detail` fields. */
export function describeError(e: unknown): string {
  if (isApiError(e)) return e.detail ? `${e.message}: ${e.detail}` : e.message;
  if (e instanceof Error) {
    if (e.name === "TimeoutError") return "upstream did not answer within the time-out";
    const cause = (e as { cause?: unknown }).cause;
    const c = cause instanceof Error ? `: ${cause.message}` : "";
    return `${e.message}${c}`.slice(0, 500);
  }
  return String(e).slice(0, 500);
}
