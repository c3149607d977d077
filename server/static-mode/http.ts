import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PERSONAS } from "../auth/personas";
import { answerFailed, requestPath, sendWebResponse, toWebRequest } from "../http/node-adapter";
import { withRouteFunctions } from "../http/unavailable-pages";
import type { Services } from "../services";
import { personaBasename, personaOfPath } from "./personas";
import { isFixtureMissing } from "./replay";

/**
 * The persona apps of static mode: `/as/<persona>/...` is served by the same Remix build with
 * the basename `/as/<persona>`, so links, forms and fetchers keep the persona by themselves.
 * Redirects a loader throws (`redirect("/my-record")`) are kept inside the persona's app.
 */

export interface ViewContext {
  services: Services;
  contentSecurityPolicy(scriptHashes: readonly string[]): string;
}

const notFound = (text: string) =>
  new Response(text, { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });

const OUTSIDE = [/^\/auth\//, /^\/api\//, /^\/build\//, /^\/idp/, /^\/favicon/];

/** `/catalogue` → `/as/clinic/catalogue` (absolute, same-site locations only) */
export function locationForPersona(location: string, persona: string): string {
  if (!location.startsWith("/") || location.startsWith("//") || personaOfPath(location)) return location;
  if (OUTSIDE.some((r) => r.test(location))) return location;
  return `${personaBasename(persona)}${location}`;
}

/**
 * The build with every route's loader and action answering a read the fixtures lack (an id a visitor
 * typed, a page no link leads to) as the page's "not found": a 404 route error response whose text says
 * the offline demo does not include it, which each route's error boundary shows as it shows any 404;
 * never a 500. Loaders that handle a 404 ApiError themselves still do.
 */
export function offlineDemoBuild(build: ServerBuild): ServerBuild {
  return withRouteFunctions(build, (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (e) {
      if (isFixtureMissing(e)) throw new Response(e.message, { status: 404, statusText: "Not Found" });
      throw e;
    }
  });
}

export function createPersonaHandler(
  build: ServerBuild,
  mode: "production" | "development" = "production",
): (request: Request, context: ViewContext) => Promise<Response | null> {
  const offline = offlineDemoBuild(build);
  const handlers = new Map(
    PERSONAS.map((p) => [
      p.username,
      createRequestHandler({ ...offline, basename: personaBasename(p.username) }, mode),
    ]),
  );
  return async (request, context) => {
    const persona = personaOfPath(new URL(request.url).pathname);
    if (!persona) return null;
    const handler = handlers.get(persona);
    if (!handler) return notFound(`No persona "${persona}" in this demonstration.`);
    const response = await handler(request, context as never);
    const location = response.headers.get("Location");
    if (location && response.status >= 300 && response.status < 400) {
      const headers = new Headers(response.headers);
      headers.set("Location", locationForPersona(location, persona));
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
    return response;
  };
}

/**
 * The persona apps as a handler of Node's request and response, asked before the catch-all Remix
 * handler (server/app.ts, static mode only): false when the path is no persona's, and the request is
 * left to the next handler.
 */
export function staticModePages(opts: {
  build: ServerBuild;
  services: Services;
  mode: "production" | "development";
  publicOrigin: string;
  contentSecurityPolicy: ViewContext["contentSecurityPolicy"];
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const handle = createPersonaHandler(opts.build, opts.mode);
  const context: ViewContext = {
    services: opts.services,
    contentSecurityPolicy: opts.contentSecurityPolicy,
  };
  return (req, res) => {
    const url = req.url ?? "/";
    if (!personaOfPath(requestPath(url))) return false;
    toWebRequest(req, opts.publicOrigin + url)
      .then((request) => handle(request, context))
      .then((response) =>
        sendWebResponse(
          res,
          // (none when the URL's dot segments lead out of the persona's path)
          response ?? notFound("Not Found"),
        ),
      )
      .catch((e: unknown) => answerFailed(res, "static mode", e));
    return true;
  };
}
