import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A test double of the dataspace upstreams (connector management API, tenant manager, token
 * endpoint): a real HTTP server on 127.0.0.1 that answers per route as the test tells it — JSON,
 * an error status, too slowly, malformed JSON — and records every request it receives, so that
 * tests can check the exact bodies the hub sent. `closedPortUrl()` gives an address where nothing
 * listens (connection refused).
 */

export type Behaviour =
  /** answer this JSON (status 200 unless given) with these headers too, optionally after a delay */
  | { json: unknown; status?: number; headers?: Record<string, string>; delayMs?: number }
  /** answer an error status with an EDC-style error body */
  | { status: number; message?: string }
  /** answer only after `delayMs` (past the client's time-out) */
  | { slowMs: number; json?: unknown }
  /** answer 200 with a body that is not JSON */
  | { malformed: true }
  /** compute the answer from the request, optionally after a delay (a slow upstream that acts on it) */
  | { reply: (req: RecordedRequest) => { status?: number; json?: unknown }; delayMs?: number }
  /**
   * answer 200 with `json` padded to `bytes` (valid JSON: a `pad` member of spaces), sent chunked (no
   * Content-Length) as fast as the reader reads; `sent.bytes` counts what went out before it stopped
   * reading, `sent.closed` whether the reader closed the connection
   */
  | { huge: { json: Record<string, unknown>; bytes: number; sent: { bytes: number; closed?: boolean } } };

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** parsed JSON, the raw text when not JSON, undefined when empty */
  body: unknown;
  rawBody: string;
}

interface Rule {
  method: string;
  path: string | RegExp;
  behaviour: Behaviour;
}

export interface UpstreamDouble {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** the answer for `method path` (exact path or a RegExp); later rules win */
  on(method: string, path: string | RegExp, behaviour: Behaviour): this;
  /** requests received for `method path` */
  received(method: string, path: string | RegExp): RecordedRequest[];
  /** forget rules and recorded requests */
  reset(): void;
  close(): Promise<void>;
}

const matches = (rule: Rule, method: string, path: string) =>
  rule.method === method && (typeof rule.path === "string" ? rule.path === path : rule.path.test(path));

export async function startUpstreamDouble(): Promise<UpstreamDouble> {
  let rules: Rule[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://double");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (rawBody) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    const method = (req.method ?? "GET").toUpperCase();
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      rawBody,
    };
    requests.push(recorded);
    const rule = [...rules].reverse().find((r) => matches(r, method, url.pathname));
    const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { "Content-Type": "application/json", ...headers });
      res.end(payload);
    };
    if (!rule)
      return send(
        404,
        JSON.stringify([{ message: `no rule for ${method} ${url.pathname}`, type: "ObjectNotFound" }]),
      );
    const b = rule.behaviour;
    if ("reply" in b) {
      if (b.delayMs) await wait(b.delayMs);
      const out = b.reply(recorded);
      return send(out.status ?? 200, out.json === undefined ? "" : JSON.stringify(out.json));
    }
    if ("huge" in b) return sendHuge(res, b.huge);
    if ("malformed" in b) return send(200, '{"@id": "truncated", "state": ');
    if ("slowMs" in b) {
      await wait(b.slowMs);
      return send(200, JSON.stringify(b.json ?? []));
    }
    if ("json" in b) {
      if (b.delayMs) await wait(b.delayMs);
      return send(b.status ?? 200, JSON.stringify(b.json), b.headers);
    }
    return send(
      b.status,
      JSON.stringify([
        { message: b.message ?? `failing on purpose with ${b.status}`, type: "InternalError" },
      ]),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const double: UpstreamDouble = {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(method, path, behaviour) {
      rules.push({ method: method.toUpperCase(), path, behaviour });
      return double;
    },
    received: (method, path) =>
      requests.filter((r) =>
        matches({ method: method.toUpperCase(), path, behaviour: { status: 0 } }, r.method, r.path),
      ),
    reset() {
      rules = [];
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return double;
}

async function sendHuge(
  res: ServerResponse,
  o: { json: Record<string, unknown>; bytes: number; sent: { bytes: number; closed?: boolean } },
): Promise<void> {
  const [head, tail] = JSON.stringify({ ...o.json, pad: "\u0000" }).split("\\u0000");
  const chunk = Buffer.alloc(64 * 1024, " ");
  res.writeHead(200, { "Content-Type": "application/json" });
  res.once("close", () => (o.sent.closed = true));
  let left = o.bytes - head!.length - tail!.length;
  const write = (b: Buffer | string) => {
    o.sent.bytes += b.length;
    return res.write(b);
  };
  let flowing = write(head!);
  while (left > 0 && !res.destroyed) {
    if (!flowing)
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    if (res.destroyed) return;
    flowing = write(left >= chunk.length ? chunk : chunk.subarray(0, left));
    left -= chunk.length;
  }
  if (!res.destroyed) res.end(tail);
}

/** An http://127.0.0.1 address where nothing listens: every request is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
