import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A fault injector in front of real upstreams: a real HTTP reverse proxy on 127.0.0.1 that forwards
 * every request to the upstream chosen by path prefix (mode "ok"), or misbehaves on purpose:
 *
 * - "refused": stops listening, so connections are refused (listens again on the same port when
 *   the mode changes back)
 * - "500": HTTP 500 with an error body
 * - "garbage": 200 `application/json` whose body is not JSON
 * - "slow": answers only after `slowMs` (longer than the hub's UPSTREAM_TIMEOUT_MS)
 * - "cut": 200 with a Content-Length of 4096, 100 bytes of it, then the connection is cut
 * - "late": forwards the request (the upstream acts on it) and holds the upstream's answer for
 *   `slowMs`: the caller gives up while the upstream has done the work
 * - "reset": the connection is destroyed as soon as the request arrives (a per-path stand-in for
 *   "refused": only the whole listener can refuse connections)
 * - "hang": accepts the request and never answers
 * - "stall": 200 headers and the first bytes of the body, then nothing
 * - "drip": 200 whose JSON body comes one byte every 100 ms (slowloris from the upstream's side)
 * - "huge": 200 `application/json` of 100 MB (a valid JSON array)
 * - "redirect": 302 to the same address
 *
 * `setMode(mode, only)` limits the fault to the requests `only` selects; the others are forwarded.
 */
export type FaultMode =
  | "ok"
  | "refused"
  | "500"
  | "garbage"
  | "slow"
  | "cut"
  | "late"
  | "reset"
  | "hang"
  | "stall"
  | "drip"
  | "huge"
  | "redirect";
/** which requests a fault applies to (method, path with query) */
export type FaultFilter = (method: string, path: string) => boolean;

export interface FaultProxy {
  readonly url: string;
  mode: FaultMode;
  setMode(mode: FaultMode, only?: FaultFilter): Promise<void>;
  /** requests forwarded or refused by fault, per mode */
  readonly seen: Record<string, number>;
  /**
   * Routes `prefix` to `origin` from now on: for an upstream that must know the proxy's address before
   * it starts (an OpenID provider whose issuer identifier is the proxy's URL).
   */
  setRoute(prefix: string, origin: string): void;
  close(): Promise<void>;
}

/** 100 MB of a JSON array of objects, made at the first "huge" answer */
let huge: Buffer | undefined;
const hugeBody = () => (huge ??= Buffer.from(`[${'{"@id":"x","name":"huge"},'.repeat(4_000_000)}{}]`));

export async function startFaultProxy(opts: {
  /** path prefix → upstream origin (the prefix is kept); "" is the default */
  routes: Record<string, string>;
  slowMs: number;
  /** listen on this port (default: a free one) */
  port?: number;
  /**
   * tell the upstream the address the client used (X-Forwarded-Host, X-Forwarded-Proto), as a
   * reverse proxy does: an upstream that builds its URLs from them (Keycloak with
   * `--proxy-headers=xforwarded`) then sends the client back through the proxy
   */
  forwardedHeaders?: boolean;
}): Promise<FaultProxy> {
  const routes = { ...opts.routes };
  let mode: FaultMode = "ok";
  let only: FaultFilter | undefined;
  const seen: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const targetOf = (path: string) => {
    const prefix = Object.keys(routes)
      .filter((p) => p && path.startsWith(p))
      .sort((a, b) => b.length - a.length)[0];
    return routes[prefix ?? ""];
  };

  async function forward(req: IncomingMessage, res: ServerResponse, holdMs = 0) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers[k] = v;
    }
    if (opts.forwardedHeaders && req.headers.host) {
      headers["x-forwarded-host"] = req.headers.host;
      headers["x-forwarded-proto"] = "http";
    }
    const upstream = await fetch(`${targetOf(req.url ?? "/")}${req.url}`, {
      method: req.method,
      headers,
      body:
        chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined,
      redirect: "manual",
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (holdMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          timers.delete(t);
          resolve();
        }, holdMs);
        timers.add(t);
      });
      if (res.destroyed) return;
    }
    const out: Record<string, string | string[]> = {};
    upstream.headers.forEach((v, k) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) out[k] = v;
    });
    // every cookie, not the last one only (an OpenID provider sets several at once)
    const cookies = upstream.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    res.writeHead(upstream.status, { ...out, "content-length": String(body.length) });
    res.end(body);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const faulted = mode !== "refused" && only && !only(req.method ?? "GET", req.url ?? "/") ? "ok" : mode;
    seen[faulted] = (seen[faulted] ?? 0) + 1;
    switch (faulted) {
      case "ok":
      case "refused":
        forward(req, res).catch(() => res.destroy());
        return;
      case "500":
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify([{ message: "injected fault", type: "InternalServerError" }]));
        return;
      case "garbage":
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{this is not json]");
        return;
      case "slow": {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) {
            res.writeHead(200, { "content-type": "application/json" });
            res.end("[]");
          }
        }, opts.slowMs);
        timers.add(t);
        return;
      }
      case "late":
        forward(req, res, opts.slowMs).catch(() => res.destroy());
        return;
      case "reset":
        req.socket.destroy();
        return;
      case "hang":
        return;
      case "stall":
        res.writeHead(200, { "content-type": "application/json" });
        res.write("[");
        return;
      case "drip": {
        res.writeHead(200, { "content-type": "application/json" });
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(" ")), 100);
        timers.add(t);
        return;
      }
      case "huge": {
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": String(hugeBody().length),
        });
        res.end(hugeBody());
        return;
      }
      case "redirect":
        res.writeHead(302, { location: req.url ?? "/" });
        res.end();
        return;
      case "cut":
        res.writeHead(200, { "content-type": "application/json", "content-length": "4096" });
        res.write(`[${'{"@id":"x"},'.repeat(8)}`);
        setTimeout(() => res.socket?.destroy(), 20);
        return;
    }
  };

  let server: Server = createServer(handler);
  const track = (s: Server) =>
    s.on("connection", (socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
  track(server);
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    set mode(m: FaultMode) {
      void proxy.setMode(m);
    },
    seen,
    setRoute(prefix, origin) {
      routes[prefix] = origin;
    },
    async setMode(next: FaultMode, filter?: FaultFilter) {
      only = filter;
      if (next === mode) return;
      const wasRefusing = mode === "refused";
      mode = next;
      for (const s of sockets) s.destroy();
      if (next === "refused") await stopListening();
      else if (wasRefusing) {
        server = createServer(handler);
        track(server);
        await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
      }
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      if (mode !== "refused") await stopListening();
    },
  };
  return proxy;
}

/**
 * The hub's environment for a local dataspace reached through `proxy` (routed at "" to `local.url`):
 * connector management and token, tenant manager, issuer and identity hub all go through the proxy,
 * so one fault mode reaches every upstream of the dataspace.
 */
export function dataspaceEnvVia(
  proxy: FaultProxy,
  local: {
    url: string;
    managementUrl: string;
    apiVersion: string;
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    tenantManagerUrl: string;
    issuerUrl: string;
    identityHubUrl: string;
    issuerApiKey: string;
    identityHubApiKey: string;
  },
): Record<string, string> {
  const via = (u: string) => u.replace(local.url, proxy.url);
  return {
    CONNECTOR_MANAGEMENT_URL: via(local.managementUrl),
    CONNECTOR_API_VERSION: local.apiVersion,
    CONNECTOR_TOKEN_URL: via(local.tokenUrl),
    CONNECTOR_CLIENT_ID: local.clientId,
    CONNECTOR_CLIENT_SECRET: local.clientSecret,
    TENANT_MANAGER_URL: via(local.tenantManagerUrl),
    ISSUER_URL: via(local.issuerUrl),
    ISSUER_API_KEY: local.issuerApiKey,
    IDENTITY_HUB_URL: via(local.identityHubUrl),
    IDENTITY_HUB_API_KEY: local.identityHubApiKey,
  };
}
