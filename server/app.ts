import { createRequestHandler } from "@remix-run/express";
import { createRequestHandler as createRemixHandler, writeReadableStreamToWritable } from "@remix-run/node";
import express from "express";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Config } from "./config";
import { createIdentityProvider, type IdentityProvider } from "./auth/idp/provider";
import { createApiDispatcher } from "./http/api-handler";
import { JSON_HEADERS } from "./http/errors";
import { createEncodedHealth } from "./health";
import { importServerBuild } from "./http/server-build";
import { HANDLERS } from "./api-routes";
import { exchangeSignal } from "./http/exchange-signal";
import { bodilessWebRequest, sendWebResponse, toWebRequest } from "./http/node-adapter";
import { nodeRequestHead } from "./http/request-head";
import { offlineResponse } from "./http/offline-notice";
import { cspFor, generateNonce, securityHeaders } from "./http/security-headers";
import { createPageSlots, PAGE_SLOT_LEASE_MS, type PageSlotStats } from "./http/page-slots";
import { createApiTurns, type ApiTurnStats } from "./http/api-turns";
import { heldDocumentBody } from "./http/document-body";
import { sharedRenderCache, type RenderCacheStats } from "./http/render-cache";
import { isCrossSiteRequest } from "./http/origin";
import { createServices, type Services } from "./services";
import { seedIfEmpty } from "./graph/seed-on-start";
import { mountStaticMode } from "./static-mode/http";

/**
 * Builds and starts the whole server: services, the embedded identity provider under /idp,
 * static assets, the office-hours gate, security headers and the Remix app (which serves /api
 * through the route table). Used by server/index.ts, the black-box tests and the desktop shell.
 */

export interface StartOptions {
  /** path to the Remix server build (default: remix/index.js beside this bundle's folder, i.e. build/remix/index.js) */
  remixBuildPath?: string;
  /** print seeding progress to the terminal */
  progress?: boolean;
  /** log each request (off in tests) */
  log?: boolean;
  /** every page through the express app, as before 0026 (the test that compares both ways) */
  pagesThroughExpress?: boolean;
  /** how long a page may hold its slot (default PAGE_SLOT_LEASE_MS; the page-slot tests set it long) */
  pageSlotLeaseMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** the page slots' counters (server/http/page-slots.ts); null when PAGE_CONCURRENCY=0 or in static mode */
  pageSlots(): PageSlotStats | null;
  /** the counters of /api requests started a few per turn (server/http/api-turns.ts, decision 0040) */
  apiTurns(): ApiTurnStats;
  /** the counters of the documents kept by their data (server/http/render-cache.ts, decision 0035) */
  renderCache(): RenderCacheStats;
  close(): Promise<void>;
}

/** build/server/index.js → build/remix/index.js; from source (tests) → HUB_BUILD_DIR or ./build */
function defaultRemixBuild(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(path.join("server", "index.js")))
    return path.join(path.dirname(path.dirname(here)), "remix", "index.js");
  return path.join(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js");
}

const STATIC_PREFIXES = ["/build/", "/favicon.ico", "/styles/", "/fixtures/"];

/** paths that always take the express app: the provider, assets (and the prefixes the gate lets through) */
const EXPRESS_PREFIXES = ["/idp", "/build", ...STATIC_PREFIXES];

const isLoopback = (address: string | undefined) =>
  !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));

/**
 * The URL Remix sees, as @remix-run/express builds it with `trust proxy` set to loopback: protocol and
 * host name from X-Forwarded-Proto / X-Forwarded-Host when the peer is loopback, the port from
 * X-Forwarded-Host or Host.
 */
function remixUrl(req: IncomingMessage): string {
  const trusted = isLoopback(req.socket.remoteAddress);
  const forwardedHost = req.headers["x-forwarded-host"] as string | undefined;
  const hostHeader = req.headers.host;
  let host = hostHeader;
  if (forwardedHost && trusted)
    host = forwardedHost.includes(",")
      ? forwardedHost.slice(0, forwardedHost.indexOf(",")).trimEnd()
      : forwardedHost;
  let hostname = "";
  if (host) {
    const offset = host.startsWith("[") ? host.indexOf("]") + 1 : 0;
    const i = host.indexOf(":", offset);
    hostname = i !== -1 ? host.slice(0, i) : host;
  }
  const forwardedPort = Number.parseInt(forwardedHost?.split(":")[1] ?? "", 10);
  const hostPort = Number.parseInt(hostHeader?.split(":")[1] ?? "", 10);
  const port = Number.isSafeInteger(forwardedPort)
    ? forwardedPort
    : Number.isSafeInteger(hostPort)
      ? hostPort
      : "";
  let protocol = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  const forwardedProto = req.headers["x-forwarded-proto"];
  if (trusted && typeof forwardedProto === "string" && forwardedProto)
    protocol = (
      forwardedProto.includes(",") ? forwardedProto.slice(0, forwardedProto.indexOf(",")) : forwardedProto
    ).trim();
  return new URL(`${protocol}://${hostname}${port ? `:${port}` : ""}${req.url}`).href;
}

/** Express's res.append/res.set: repeated headers add up; a text type without a charset gets utf-8 */
function appendHeader(res: ServerResponse, key: string, value: string) {
  if (
    key === "content-type" &&
    !/;\s*charset\s*=/i.test(value) &&
    /^(text\/|application\/(javascript|json))/i.test(value.split(";")[0])
  )
    value += "; charset=utf-8";
  const prev = res.getHeader(key);
  if (prev === undefined) res.setHeader(key, value);
  else res.setHeader(key, Array.isArray(prev) ? [...prev, value] : [String(prev), value]);
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  // static mode: the same interfaces, answered from fixtures/static (server/static-mode)
  const services =
    config.appMode === "static"
      ? (await import("./static-mode/replay")).createStaticServices(config)
      : await createServices(config);
  if (config.appMode === "live") await seedIfEmpty(services, { progress: opts.progress ?? false });

  let idp: IdentityProvider | undefined;
  if (services.embeddedIdp && config.appMode === "live") {
    idp = await createIdentityProvider({ config, rel: services.rel, ...services.embeddedIdp });
  }

  const buildPath = path.resolve(opts.remixBuildPath ?? defaultRemixBuild());
  const clientAssets = path.join(path.dirname(path.dirname(buildPath)), "client");
  const build = await importServerBuild(pathToFileURL(buildPath).href);
  const dispatchApi = createApiDispatcher(services, HANDLERS);
  const https = config.publicUrl.startsWith("https:");
  const formActions = config.oidc ? [new URL(config.oidc.issuer).origin] : [];
  const baseHeaders = securityHeaders({ https });

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", "loopback");

  const baseHeaderEntries = Object.entries(baseHeaders);
  /** a request's line in the log once answered (`opts.log`) */
  const logWhenDone = (req: IncomingMessage, res: ServerResponse) => {
    if (!opts.log) return;
    const t0 = performance.now();
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    res.on("finish", () =>
      console.log(`${req.method} ${url} ${res.statusCode} ${(performance.now() - t0).toFixed(1)}ms`),
    );
  };
  /** the security headers of a page (or asset) answer, with its own CSP nonce (returned) */
  const pageHeaders = (req: IncomingMessage, res: ServerResponse): string => {
    const nonce = generateNonce();
    for (const [k, v] of baseHeaderEntries) res.setHeader(k, v);
    res.setHeader("Content-Security-Policy", cspFor(nonce, formActions));
    logWhenDone(req, res);
    return nonce;
  };

  app.use((req, res, next) => {
    res.locals.cspNonce = pageHeaders(req, res);
    next();
  });

  // form posts to views (and anything else that changes state) from a foreign origin are refused
  const ownOrigins = [new URL(config.publicUrl).origin];
  app.use((req, res, next) => {
    if (req.path.startsWith("/api/") || req.path.startsWith("/idp")) return next();
    // the same check as the API's (Origin, else Sec-Fetch-Site, else a foreign Referer), read from Node's headers
    if (!isCrossSiteRequest(nodeRequestHead(req, config.publicUrl + req.url), ownOrigins)) return next();
    res.status(403).type("text/plain").send("Cross-origin request refused");
  });

  // office hours: pages get the offline notice; /api answers 503 JSON from the dispatcher
  app.use(async (req, res, next) => {
    if (req.path.startsWith("/api/") || STATIC_PREFIXES.some((p) => req.path.startsWith(p))) return next();
    const status = services.officeHours.status(new Date());
    if (status.open) return next();
    const r = offlineResponse(status, "page", services.officeHours.timeZone);
    res.status(r.status);
    r.headers.forEach((v, k) => res.setHeader(k, v));
    res.send(await r.text());
  });

  idp?.mount(app);

  app.use("/build", express.static(clientAssets, { immutable: true, maxAge: "1y", fallthrough: false }));
  // public/ holds the favicon only: looked up on disk for that path, not for every page
  const favicon = path.resolve("public", "favicon.ico");
  app.get("/favicon.ico", (_req, res) => res.sendFile(favicon, { maxAge: "1h" }));

  // static mode: /as/<persona>/... is the app as that persona (server/static-mode/http.ts)
  if (config.appMode === "static") {
    const mode = config.env === "production" ? "production" : "development";
    mountStaticMode(app, { build, services, mode, publicOrigin: new URL(config.publicUrl).origin });
  }

  const remixMode = config.env === "production" ? "production" : "development";
  app.all(
    "*",
    createRequestHandler({
      build,
      mode: remixMode,
      getLoadContext: (_req, res) => ({ services, cspNonce: res.locals.cspNonce as string }),
    }),
  );

  // A GET or HEAD of a page or of its data (`.data`, live mode) skips express (docs/decisions/0026,
  // 0038): the same headers, origin check, office-hours gate, Request and Remix handler as the app's,
  // without express's per-request layers. A refused or closed-hours request, any other method and
  // every path of EXPRESS_PREFIXES take the express app as before.
  const handleRemix = createRemixHandler(build, remixMode);
  const pathnameOf = (req: IncomingMessage): string => {
    const url = req.url ?? "";
    const q = url.indexOf("?");
    return q === -1 ? url : url.slice(0, q);
  };
  const isPage = (req: IncomingMessage): boolean => {
    if (config.appMode !== "live" || opts.pagesThroughExpress) return false;
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const pathname = pathnameOf(req);
    return pathname.startsWith("/") && !EXPRESS_PREFIXES.some((p) => pathname.startsWith(p));
  };
  // one turn of the event loop for the server: health's answers, then a page, then a few API requests
  // (server/http/api-turns.ts, decision 0040)
  const apiTurns = createApiTurns();
  // pages and their data requests are answered a few at a time, in the order they came
  // (server/http/page-slots.ts, docs/decisions/0030); PAGE_CONCURRENCY=0 turns the limit off
  const pageSlots =
    config.appMode === "live" && config.pageConcurrency > 0
      ? createPageSlots(config.pageConcurrency, opts.pageSlotLeaseMs ?? PAGE_SLOT_LEASE_MS, (run) =>
          apiTurns.later(run),
        )
      : null;
  const admitted = (res: ServerResponse, start: () => void) =>
    pageSlots ? pageSlots.admit(res, start) : start();
  const servePage = (req: IncomingMessage, res: ServerResponse) => {
    if (
      isCrossSiteRequest(nodeRequestHead(req, config.publicUrl + req.url), ownOrigins) ||
      !services.officeHours.status(new Date()).open
    )
      return app(req, res);
    admitted(res, () => answerPage(req, res));
  };
  const answerPage = (req: IncomingMessage, res: ServerResponse) => {
    const nonce = pageHeaders(req, res);
    // the request's signal ends with the exchange, as with @remix-run/express: loaders are aborted when
    // the client goes before the answer is written, and once it is written what Remix keeps per request
    // until then is let go (the hand-off's 4.95 s time-out timer, which would otherwise run out), and
    // the signal lets go of its listeners (server/http/exchange-signal.ts)
    const signal = exchangeSignal(res);
    Promise.resolve()
      .then(() =>
        handleRemix(bodilessWebRequest(req, remixUrl(req), signal), {
          services,
          cspNonce: nonce,
        }),
      )
      .then(async (response) => {
        res.statusMessage = response.statusText;
        res.statusCode = response.status;
        for (const [k, v] of response.headers.entries()) appendHeader(res, k, v);
        const held = heldDocumentBody(response);
        if (held) return void res.end(held);
        if (/text\/event-stream/i.test(response.headers.get("content-type") ?? "")) res.flushHeaders();
        if (response.body) await writeReadableStreamToWritable(response.body, res);
        else res.end();
      })
      .catch((e: unknown) => {
        console.error("[pages] could not answer:", e);
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader("content-type", "text/plain; charset=utf-8");
        }
        res.end("Internal Server Error");
      });
  };

  // /api skips express: the Node listener hands it to the framework-free dispatcher
  // (docs/decisions/0002-api-dispatch.md); pages, assets and /idp go through express.
  const publicOrigin = new URL(config.publicUrl).origin;
  const apiHeaders = {
    ...baseHeaders,
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  };
  // GET /api/health first of all, from the monitor's pre-encoded bytes: no session, no Request, no
  // logging (without a fresh probe result it takes the dispatcher's route, which waits for one)
  const health = config.appMode === "live" ? createEncodedHealth(services.health) : null;
  const healthHeaders = Object.entries({ ...apiHeaders, ...JSON_HEADERS }).flat();
  const apiHeaderEntries = Object.entries(apiHeaders);
  // names lower-case, as sendWebResponse wants its base headers
  const apiHeaderList = apiHeaderEntries.flatMap(([k, v]) => [k.toLowerCase(), v]);
  // a GET or HEAD is dispatched from its head, its web Request built only if the handler reads it
  // (server/http/request-head.ts); a request with a body is read into a Request first
  const answerApi = (req: IncomingMessage, url: string): Promise<Response> => {
    if (req.method === "GET" || req.method === "HEAD")
      return dispatchApi(nodeRequestHead(req, url), () => bodilessWebRequest(req, url));
    return toWebRequest(req, url).then((request) => dispatchApi(request, () => request));
  };
  const answerApiRequest = (req: IncomingMessage, res: ServerResponse) =>
    answerApi(req, publicOrigin + req.url)
      .then((response) => sendWebResponse(res, response, req.headers["accept-encoding"], apiHeaderList))
      .catch((e) => {
        console.error("[api] could not answer:", e);
        if (!res.headersSent) {
          for (const [k, v] of apiHeaderEntries) res.setHeader(k, v);
          res.writeHead(500, { "content-type": "application/json" });
        }
        res.end(JSON.stringify({ error: "Internal server error" }));
      });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (health && req.url === "/api/health" && req.method === "GET") {
      const a = health();
      if (a) {
        // written in this turn's check phase, before any API request (server/http/api-turns.ts)
        apiTurns.first(() => {
          if (res.destroyed) return;
          res.writeHead(a.status, [
            ...healthHeaders,
            ...["Age", String(Math.floor(a.ageMs / 1000)), "X-Health-Age-Ms", String(Math.round(a.ageMs))],
            ...["Content-Length", String(a.body.byteLength)],
          ]);
          res.end(a.body);
        });
        return;
      }
    }
    if (!req.url?.startsWith("/api/") && req.url !== "/api")
      return isPage(req)
        ? servePage(req, res)
        : pathnameOf(req).endsWith(".data")
          ? admitted(res, () => app(req, res))
          : app(req, res);
    logWhenDone(req, res);
    // started a few per turn of the event loop, not from this read callback, so that health (above)
    // never waits behind more than a few API requests (server/http/api-turns.ts, decision 0040)
    apiTurns.enqueue(res, req.method === "GET" || req.method === "HEAD", () => answerApiRequest(req, res));
  };
  const server = createServer(listener);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (e) {
    // the port is taken (or refused): give back what was opened, so the caller may try another port
    await idp?.close();
    await services.close();
    throw e;
  }
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const loopbackHost = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  services.runtime.internalOrigin = `http://${loopbackHost.includes(":") ? `[${loopbackHost}]` : loopbackHost}:${port}`;
  const purge = setInterval(
    () =>
      void services.sessions
        .purgeExpired()
        .catch((err: unknown) => console.warn("sessions: purging expired sessions failed", err)),
    10 * 60 * 1000,
  );
  purge.unref();

  let closed = false;
  return {
    url: services.runtime.internalOrigin,
    port,
    services,
    pageSlots: () => pageSlots?.stats() ?? null,
    apiTurns: () => apiTurns.stats(),
    renderCache: () => sharedRenderCache().stats(),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purge);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await idp?.close();
      await services.close();
    },
  };
}
