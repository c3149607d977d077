import { z } from "zod";
import { ANSWER_TOO_LARGE } from "../http/limits";

/**
 * The one way this module talks HTTP to an upstream (connector, tenant manager, issuer, identity
 * hub, token endpoint): `fetch` with the configured time-out (and an optional overall deadline),
 * JSON in and out, every response validated with zod, every failure an UpstreamError that says
 * which upstream failed and how. Web standards only.
 */

export type UpstreamName =
  "connector" | "tenant manager" | "issuer" | "identity hub" | "token endpoint" | "data plane";

export type UpstreamFailure =
  /** connection refused, DNS failure, reset */
  | "unreachable"
  /** no answer within the time-out or the caller's deadline */
  | "timeout"
  /** an HTTP status outside 2xx */
  | "status"
  /** not JSON, or JSON of an unexpected shape */
  | "invalid-response"
  /** the access token could not be obtained */
  | "token";

export class UpstreamError extends Error {
  constructor(
    readonly upstream: UpstreamName,
    readonly failure: UpstreamFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "UpstreamError";
  }
}

export function isUpstreamError(e: unknown): e is UpstreamError {
  return e instanceof UpstreamError;
}

const isStatus = (status: number) => (e: unknown) =>
  isUpstreamError(e) && e.failure === "status" && e.status === status;
export const isNotFound = isStatus(404);
/** the upstream answered 409: the record exists already (or cannot change in its state) */
export const isConflict = isStatus(409);

export interface TokenSource {
  /** a bearer token; rejects with an UpstreamError("token") when none can be had */
  token(signal?: AbortSignal): Promise<string>;
}

export interface RequestOptions<S extends z.ZodType> {
  schema: S;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** an overall deadline shared by several calls (e.g. one list route) */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface UpstreamHttp {
  readonly name: UpstreamName;
  readonly baseUrl: string;
  request<S extends z.ZodType>(method: string, path: string, options: RequestOptions<S>): Promise<z.infer<S>>;
  /** a request whose body is not JSON-validated (used for 204 answers) */
  send(method: string, path: string, options?: Omit<RequestOptions<z.ZodType>, "schema">): Promise<void>;
}

export interface UpstreamHttpOptions {
  name: UpstreamName;
  baseUrl: string;
  timeoutMs: number;
  tokens?: TokenSource;
  /**
   * The upstream's API key, sent as `x-api-key` in place of a bearer token (`tokens` is then not asked):
   * an EDC connector's management API (`tokenbased` auth), IdentityHub's identity and issuer admin APIs
   * (0.15.1 authenticates them by this header only, decision 0114)
   */
  apiKey?: string;
  /** sent with every request */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** what a client of one upstream is built with */
export type UpstreamClientOptions = Pick<
  UpstreamHttpOptions,
  "baseUrl" | "timeoutMs" | "tokens" | "apiKey" | "fetch"
>;

/**
 * The deadline of one upstream call: aborted after `timeoutMs` (a `TimeoutError`, as
 * `AbortSignal.timeout`) or with the caller's signal, whichever comes first. Unlike
 * `AbortSignal.timeout`, its timer goes when the call ends (`clear`): a short call leaves no timer and
 * abort event behind for the whole time-out.
 */
export function callDeadline(timeoutMs: number, signal?: AbortSignal) {
  const controller = new AbortController();
  if (signal?.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, clear: () => undefined };
  }
  const timer = setTimeout(
    () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    timeoutMs,
  );
  timer.unref();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

export function createUpstreamHttp(options: UpstreamHttpOptions): UpstreamHttp {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const { name } = options;

  async function exchange(
    method: string,
    path: string,
    opts: Omit<RequestOptions<z.ZodType>, "schema">,
    signal: AbortSignal,
  ): Promise<Response> {
    const url = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const headers = new Headers({ Accept: "application/json", ...options.headers, ...opts.headers });
    // a URLSearchParams body is a form (the token call, RFC 6749 §4.4), any other JSON
    const { body } = opts;
    const form = body instanceof URLSearchParams;
    if (body !== undefined)
      headers.set("Content-Type", form ? "application/x-www-form-urlencoded" : "application/json");
    if (options.apiKey) headers.set("x-api-key", options.apiKey);
    else if (options.tokens) {
      // a failed token call is an error: never an unauthenticated request
      headers.set("Authorization", `Bearer ${await options.tokens.token(signal)}`);
    }
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers,
        body: form ? body : body === undefined ? undefined : JSON.stringify(body),
        signal,
        redirect: "error",
      });
    } catch (e) {
      throw transportError(name, e, signal);
    }
    if (!response.ok) {
      const text = await readText(response, name, signal);
      throw new UpstreamError(
        name,
        "status",
        `${name} answered HTTP ${response.status}${errorSummary(text)}`,
        response.status,
      );
    }
    return response;
  }

  return {
    name,
    baseUrl,
    async request(method, path, opts) {
      // one deadline for the whole call, the answer's body included, gone when it ends
      const deadline = callDeadline(options.timeoutMs, opts.signal);
      let response: Response;
      let text: string;
      try {
        response = await exchange(method, path, opts, deadline.signal);
        text = await readText(response, name, deadline.signal);
      } finally {
        deadline.clear();
      }
      const invalid = (what: string) =>
        new UpstreamError(name, "invalid-response", `${name} answered with ${what}`, response.status);
      let value: unknown;
      try {
        value = text.trim() === "" ? undefined : JSON.parse(text);
      } catch {
        throw invalid("malformed JSON");
      }
      const parsed = opts.schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
        throw invalid(`an unexpected shape${where}: ${issue?.message ?? "invalid"}`);
      }
      return parsed.data;
    },
    async send(method, path, opts = {}) {
      const deadline = callDeadline(options.timeoutMs, opts.signal);
      try {
        await readText(await exchange(method, path, opts, deadline.signal), name, deadline.signal);
      } finally {
        deadline.clear();
      }
    },
  };
}

async function readText(response: Response, name: UpstreamName, signal: AbortSignal): Promise<string> {
  try {
    return await response.text();
  } catch (e) {
    throw transportError(name, e, signal);
  }
}

export function transportError(
  name: UpstreamName,
  e: unknown,
  signal: AbortSignal | undefined,
): UpstreamError {
  if (e instanceof UpstreamError) return e;
  const err = e as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === "TimeoutError" || err?.name === "AbortError" || signal?.aborted) {
    return new UpstreamError(name, "timeout", `${name} did not answer within the time-out`, undefined, {
      cause: e,
    });
  }
  if (err?.code === ANSWER_TOO_LARGE)
    return new UpstreamError(
      name,
      "invalid-response",
      `${name} answered more than an answer may hold`,
      undefined,
      {
        cause: e,
      },
    );
  // fetch wraps the socket error in `cause`; undici's request (pooled-fetch.ts) throws it with its `code`
  const code = err?.cause?.code ?? err?.code ?? err?.cause?.message ?? err?.message ?? "network error";
  return new UpstreamError(name, "unreachable", `${name} is unreachable (${code})`, undefined, { cause: e });
}

/** The first message of an EDC error body (`[{message, type, path}]`), or a short text excerpt. */
function errorSummary(text: string): string {
  const t = text.trim();
  if (!t) return "";
  try {
    const v: unknown = JSON.parse(t);
    const first = Array.isArray(v) ? v[0] : v;
    if (first && typeof first === "object") {
      const o = first as Record<string, unknown>;
      const msg = o.message ?? o.error_description ?? o.error ?? o.detail;
      if (typeof msg === "string" && msg) return `: ${msg.slice(0, 300)}`;
    }
  } catch {
    /* not JSON */
  }
  return `: ${t.replace(/\s+/g, " ").slice(0, 200)}`;
}

/** An array response, tolerating a single object where JSON-LD compaction collapsed a one-element list. */
export const jsonLdList = <T extends z.ZodType>(item: T) =>
  z.union([z.array(item), item.transform((v) => [v])]) as unknown as z.ZodType<z.infer<T>[]>;
