import { Agent, Client, request, type Dispatcher } from "undici";
import { UPSTREAM_MAX_BYTES } from "../http/limits";

/**
 * A `fetch` for the upstream clients on a keep-alive connection pool (undici `Agent` and its
 * `request`, which skips the WHATWG stream machinery of `fetch`; decision 0010). It answers a web `Response` with the whole body read, so the clients stay web-standard; redirects
 * are not followed (they answer as their 3xx status). One pool for all upstream clients (the agent
 * keeps one per origin), closed with the dataspace. A GET or HEAD whose kept-alive connection is closed
 * under it before any answer is sent once more (pooled-fetch.test.ts). An answer of more than
 * `UPSTREAM_MAX_BYTES` is cut off unread (`UND_ERR_RES_EXCEEDED_MAX_SIZE`): no upstream fills the heap.
 */

/** methods that change nothing upstream: sent again when their connection was closed under them */
const RESENDABLE = new Set(["GET", "HEAD"]);
/** the connection was closed by the other side, not refused or timed out */
const CLOSED_UNDER = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
const codeOf = (e: unknown) => String((e as { code?: unknown } | null)?.code ?? "");

export function createPooledFetch(
  options: {
    connections?: number;
    /** how each connection is made (default: undici's); the pull's pool checks its addresses (pull-connect.ts) */
    connect?: Agent.Options["connect"];
  } = {},
) {
  const { connect } = options;
  const agent = new Agent({
    connections: options.connections ?? 32,
    keepAliveTimeout: 4_000,
    pipelining: 1,
    maxResponseSize: UPSTREAM_MAX_BYTES,
    ...(connect ? { connect } : {}),
  });
  const pooled = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" || input instanceof URL ? String(input) : input.url;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = init.body;
    const method = (init.method ?? "GET").toUpperCase();
    const send = async (dispatcher: Dispatcher) =>
      request(url, {
        dispatcher,
        method: method as "GET",
        headers,
        body:
          body === undefined || body === null
            ? undefined
            : typeof body === "string"
              ? body
              : body instanceof URLSearchParams
                ? body.toString()
                : Buffer.from(await new Response(body).arrayBuffer()),
        signal: init.signal ?? undefined,
      });
    let res: Awaited<ReturnType<typeof request>>;
    let once: Client | undefined;
    try {
      res = await send(agent);
    } catch (e) {
      // a kept-alive connection closed under the request before any answer (the upstream restarted or
      // dropped its idle connections as the request went out): a read is sent once more, within the
      // same signal, on a connection of its own — the pool may hold more connections closed by the same
      // restart; a write is never sent twice
      if (!RESENDABLE.has(method) || init.signal?.aborted || !CLOSED_UNDER.has(codeOf(e))) throw e;
      once = new Client(new URL(url).origin, {
        pipelining: 1,
        maxResponseSize: UPSTREAM_MAX_BYTES,
        ...(connect ? { connect } : {}),
      });
      try {
        res = await send(once);
      } catch (again) {
        void once.destroy();
        throw again;
      }
    }
    let text: string;
    try {
      text = await res.body.text();
    } finally {
      void once?.close();
    }
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const x of v) out.append(k, x);
      else out.set(k, v);
    }
    const nullBody = res.statusCode === 204 || res.statusCode === 304;
    return new Response(nullBody ? null : text, { status: res.statusCode, headers: out });
  };
  // idempotent: a restart of the embedded dataspace (operator console) closes it before the container does
  let closing: Promise<void> | undefined;
  return { fetch: pooled as typeof fetch, close: (): Promise<void> => (closing ??= agent.close()) };
}
