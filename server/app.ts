import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Config } from "./config";
import { createIdentityProvider, type IdentityProvider } from "./auth/idp/provider";
import { createApiDispatcher } from "./http/api-handler";
import { errorResponse, json, JSON_HEADERS } from "./http/errors";
import { createEncodedHealth } from "./health";
import { importServerBuild } from "./http/server-build";
import { HANDLERS } from "./api-routes";
import { CONTRACTS } from "./openapi/contracts";
import {
  bodilessWebRequest,
  requestPath,
  sendText,
  sendWebResponse,
  toWebRequest,
} from "./http/node-adapter";
import { nodeRequestHead } from "./http/request-head";
import { FORM_REQUIRED, isUnreadableForm } from "./http/body";
import { refuseMethod, refuseTooMany, SERVED_METHODS } from "./http/methods";
import { clientAddress, rateLimitOf } from "./http/rate-limits";
import { createRateLimits } from "./storage/rate-limits";
import { offlineResponse } from "./http/offline-notice";
import { cspFor, generateNonce, isCrossSiteRequest, securityHeaders } from "./http/security-headers";
import { createTurns } from "./http/turns";
import { readCookie, SESSION_COOKIE } from "./auth/sessions";
import { answerWithRemix } from "./http/remix-answer";
import { createRemixHandlers } from "./http/remix-handlers";
import { withCompression } from "./http/compression";
import { ASSETS_PATH, createStaticFiles } from "./http/static-files";
import { sharedRenderCache } from "./http/render-cache";
import { createServices } from "./services";
import { seedIfEmpty } from "./graph/seed-on-start";
import { staticModePages } from "./static-mode/http";
import { answerReferencePage } from "./openapi/reference-page";
import { GRAPH_BRIDGE_PATH } from "./dataspace/graph-bridge";

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
  /** how long a page may hold its slot (default PAGE_SLOT_LEASE_MS of server/http/turns.ts; the page-slot tests set it long) */
  pageSlotLeaseMs?: number;
}

export type RunningServer = Awaited<ReturnType<typeof startServer>>;

/** build/server/index.js → build/remix/index.js; from source (tests) → HUB_BUILD_DIR or ./build */
function defaultRemixBuild(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(path.join("server", "index.js")))
    return path.join(path.dirname(path.dirname(here)), "remix", "index.js");
  return path.join(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js");
}

/** paths the office-hours gate lets through */
const STATIC_PREFIXES = ["/build/", "/favicon.ico", "/styles/", "/fixtures/"];
/** posts that are not a page's form: the wallet's direct_post and the provider's back-channel logout */
const OWN_BODIES = new Set(["/auth/wallet/response", "/auth/backchannel-logout"]);

/** `/idp` and below it, as express's `app.use("/idp")` matched (not `/idpx`) */
const isUnder = (pathname: string, mount: string) => pathname === mount || pathname.startsWith(`${mount}/`);

export async function startServer(config: Config, opts: StartOptions = {}) {
  // static mode: the same interfaces, answered from fixtures/static (server/static-mode)
  const services =
    config.appMode === "static"
      ? (await import("./static-mode/replay")).createStaticServices(config)
      : await createServices(config);
  if (config.appMode === "live") await seedIfEmpty(services, { progress: opts.progress ?? false });

  // counted in the relational store, shared by every instance on it (server/http/rate-limits.ts)
  const rateLimits =
    config.appMode === "live"
      ? await createRateLimits({ config, rel: services.rel, db: services.db })
      : undefined;

  let idp: IdentityProvider | undefined;
  if (services.embeddedIdp && config.appMode === "live") {
    idp = await createIdentityProvider({ config, rel: services.rel, rateLimits, ...services.embeddedIdp });
  }

  const buildPath = path.resolve(opts.remixBuildPath ?? defaultRemixBuild());
  const clientAssets = path.join(path.dirname(path.dirname(buildPath)), "client");
  const build = await importServerBuild(pathToFileURL(buildPath).href);
  const dispatchApi = createApiDispatcher(services, HANDLERS, CONTRACTS);
  const formActions = config.oidc ? [new URL(config.oidc.issuer).origin] : [];
  const baseHeaders = securityHeaders({ https: config.publicUrl.startsWith("https:") });

  const baseHeaderEntries = Object.entries(baseHeaders);
  /** a request's line in the log once answered (`opts.log`) */
  const logWhenDone = (req: IncomingMessage, res: ServerResponse) => {
    if (!opts.log) return;
    const t0 = performance.now();
    const url = req.url;
    res.on("finish", () =>
      console.log(`${req.method} ${url} ${res.statusCode} ${(performance.now() - t0).toFixed(1)}ms`),
    );
  };
  /** a rendered document's policy: its own inline scripts by their hashes (app/entry.server.tsx) */
  const contentSecurityPolicy = (scriptHashes: readonly string[]) => cspFor(scriptHashes, formActions);
  /** the security headers of a page (or asset) answer, with its own CSP nonce (returned) */
  const pageHeaders = (req: IncomingMessage, res: ServerResponse): string => {
    const nonce = generateNonce();
    for (const [k, v] of baseHeaderEntries) res.setHeader(k, v);
    res.setHeader("Content-Security-Policy", cspFor(nonce, formActions));
    logWhenDone(req, res);
    return nonce;
  };

  const publicOrigin = new URL(config.publicUrl).origin;
  const ownOrigins = [publicOrigin];
  const files = createStaticFiles({
    clientAssets,
    // public/ holds the favicon only: looked up on disk for that path, not for every page
    favicon: path.resolve("public", "favicon.ico"),
  });
  // Remix's development mode sends stack traces to the browser: only with config.errorDetails
  const remixMode = config.errorDetails ? "development" : "production";
  const handleRemix = createRemixHandlers(build, remixMode);
  // static mode: /as/<persona>/... is the app as that persona (server/static-mode/http.ts)
  const personaPages =
    config.appMode === "static"
      ? staticModePages({ build, services, mode: remixMode, publicOrigin, contentSecurityPolicy })
      : null;

  // the server's one scheduler (server/http/turns.ts): in each turn of the event loop health's answers,
  // then a page, then a few API requests; pages a few at a time, shared fairly between callers;
  // PAGE_CONCURRENCY=0 (and static mode) turns the page limit off
  const pageLimit = config.appMode === "live" ? config.pageConcurrency : 0;
  const turns = createTurns({
    pageLimit,
    ...(opts.pageSlotLeaseMs ? { leaseMs: opts.pageSlotLeaseMs } : {}),
  });
  /** whose page it is, for the page slots' fair share: the session token, else the peer address */
  const callerOf = (req: IncomingMessage) =>
    readCookie(req.headers.cookie ?? null, SESSION_COOKIE)?.split(".")[0] ?? req.socket.remoteAddress ?? "";

  /**
   * Everything but /api, on Node's own request and response (docs/decisions/history/0041). /idp is
   * spared the origin check (its forms post across its own path), files the office-hours gate; a GET
   * or HEAD, and any request of a page's data (`.data`), waits for a page slot in live mode.
   */
  const serveNonApi = (req: IncomingMessage, res: ServerResponse) => {
    const pathname = requestPath(req.url ?? "/");
    const nonce = pageHeaders(req, res);
    const head = nodeRequestHead(req, config.publicUrl + req.url);
    // the same check as the API's (Origin, else Sec-Fetch-Site, else a foreign Referer), read from Node's headers
    if (!pathname.startsWith("/idp") && isCrossSiteRequest(head, ownOrigins))
      return sendText(res, 403, "Cross-origin request refused");
    if (!STATIC_PREFIXES.some((p) => pathname.startsWith(p))) {
      const status = services.officeHours.status(new Date());
      if (!status.open)
        return void sendWebResponse(res, offlineResponse(status, "page", services.officeHours.timeZone));
    }
    if (idp && isUnder(pathname, "/idp")) return idp.handle(req, res);
    if (isUnder(pathname, ASSETS_PATH)) return files.assets(req, res);
    if (pathname === "/favicon.ico" && (req.method === "GET" || req.method === "HEAD"))
      return files.favicon(req, res);
    // a page's action reads a form; the wallet's and the provider's posts answer their protocols' errors themselves
    if (req.method !== "GET" && req.method !== "HEAD" && !OWN_BODIES.has(pathname) && isUnreadableForm(head))
      return void sendWebResponse(res, json({ error: FORM_REQUIRED }, 415));
    if (answerReferencePage(req, res, nonce)) return;
    if (personaPages?.(req, res)) return;
    const answer = () => answerWithRemix(handleRemix, req, res, { services, contentSecurityPolicy });
    if (pageLimit > 0 && (req.method === "GET" || req.method === "HEAD" || pathname.endsWith(".data")))
      return turns.page(res, callerOf(req), answer);
    answer();
  };

  /** the graph bridge, server to server: a provider data plane reads an asset's data (server/dataspace/graph-bridge.ts) */
  const answerBridge = (req: IncomingMessage, res: ServerResponse) =>
    void Promise.resolve()
      // inside the chain: a throw at once (static mode's replay of a call never recorded) is answered, not a crash
      .then(() =>
        services.dataspace.answerGraphBridge({
          method: req.method ?? "",
          url: req.url ?? "/",
          headers: req.headers,
        }),
      )
      .then(async ({ status, body, anonymous }) => {
        if (anonymous)
          await services.accessLog
            .refused({ actor: null, what: `${req.method} ${GRAPH_BRIDGE_PATH}/assets`, status })
            .catch(() => {});
        return json(body, status, { "Cache-Control": "no-store" });
      }, errorResponse)
      .then((response) => sendWebResponse(res, response));

  // /api: the Node listener hands it to the framework-free dispatcher (docs/decisions/0002-api-dispatch.md)
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
        // written in this turn's check phase, before any API request (server/http/turns.ts)
        turns.first(() => {
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
    const api = !!req.url && (req.url.startsWith("/api/") || req.url === "/api");
    if (!SERVED_METHODS.has(req.method ?? "")) {
      if (api) for (const [k, v] of apiHeaderEntries) res.setHeader(k, v);
      else pageHeaders(req, res);
      return refuseMethod(res, req.method ?? "", requestPath(req.url ?? "/"), api);
    }
    // what an anonymous caller can start is counted per client first (decision 0045)
    const limit = rateLimits && rateLimitOf(req.method ?? "", requestPath(req.url ?? "/"));
    if (limit)
      return void rateLimits.take(limit, clientAddress(req)).then((wait) => {
        if (wait === undefined) return proceed(req, res, api);
        if (api) for (const [k, v] of apiHeaderEntries) res.setHeader(k, v);
        else pageHeaders(req, res);
        refuseTooMany(res, wait, api);
      });
    proceed(req, res, api);
  };
  const proceed = (req: IncomingMessage, res: ServerResponse, api: boolean) =>
    withCompression(req, res, () => route(req, res, api));
  const route = (req: IncomingMessage, res: ServerResponse, api: boolean) => {
    if (!api && isUnder(requestPath(req.url ?? "/"), GRAPH_BRIDGE_PATH)) return answerBridge(req, res);
    if (!api) return serveNonApi(req, res);
    logWhenDone(req, res);
    // started a few per turn of the event loop, not from this read callback, so that health (above)
    // never waits behind more than a few API requests (server/http/turns.ts)
    turns.api(res, () => answerApiRequest(req, res));
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
    () => {
      void services.sessions
        .purgeExpired()
        .catch((err: unknown) => console.warn("sessions: purging expired sessions failed", err));
      void rateLimits
        ?.purge()
        .catch((err: unknown) => console.warn("rate limits: purging old counts failed", err));
    },
    10 * 60 * 1000,
  );
  purge.unref();

  let closed = false;
  return {
    url: services.runtime.internalOrigin,
    port,
    services,
    // the counters of the page slots (null without a limit) and of /api requests (server/http/turns.ts)
    pageSlots: () => (pageLimit > 0 ? turns.pageStats() : null),
    apiTurns: () => turns.apiStats(),
    // the counters of the documents kept by their data (server/http/render-cache.ts, decision 0035)
    renderCache: () => sharedRenderCache().stats(),
    // the listening Node server (the black-box tests watch its answers against the OpenAPI document)
    http: server,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purge);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await idp?.close();
      await rateLimits?.close();
      await services.close();
    },
  };
}
