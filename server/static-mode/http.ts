import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import type { Express } from "express";
import { findPersona, PERSONAS } from "../auth/personas";
import { sendWebResponse, toWebRequest } from "../http/node-adapter";
import type { Services } from "../services";
import { personaBasename, personaOfPath } from "./personas";

/**
 * The persona apps of static mode: `/as/<persona>/...` is served by the same Remix build with
 * the basename `/as/<persona>`, so links, forms and fetchers keep the persona by themselves.
 * Redirects a loader throws (`redirect("/my-record")`) are kept inside the persona's app.
 */

export interface ViewContext {
  services: Services;
  cspNonce: string;
}

export type PersonaHandler = (request: Request, context: ViewContext) => Promise<Response | null>;

const OUTSIDE = [/^\/auth\//, /^\/api\//, /^\/build\//, /^\/idp/, /^\/favicon/];

/** `/catalogue` → `/as/clinic/catalogue` (absolute, same-site locations only) */
export function locationForPersona(location: string, persona: string): string {
  if (!location.startsWith("/") || location.startsWith("//") || personaOfPath(location)) return location;
  if (OUTSIDE.some((r) => r.test(location))) return location;
  return `${personaBasename(persona)}${location}`;
}

export function createPersonaHandler(
  build: ServerBuild,
  mode: "production" | "development" = "production",
): PersonaHandler {
  const handlers = new Map(
    PERSONAS.map((p) => [
      p.username,
      createRequestHandler({ ...build, basename: personaBasename(p.username) }, mode),
    ]),
  );
  return async (request, context) => {
    const persona = personaOfPath(new URL(request.url).pathname);
    if (!persona) return null;
    const handler = handlers.get(persona);
    if (!handler || !findPersona(persona)) {
      return new Response(`No persona "${persona}" in this demonstration.`, {
        status: 404,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
    }
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

/** express glue: the persona apps, before the catch-all Remix handler (server/app.ts, static mode only) */
export function mountStaticMode(
  app: Express,
  opts: { build: ServerBuild; services: Services; mode: "production" | "development"; publicOrigin: string },
) {
  const handle = createPersonaHandler(opts.build, opts.mode);
  app.use((req, res, next) => {
    if (!personaOfPath(req.path)) return next();
    toWebRequest(req, opts.publicOrigin + req.originalUrl)
      .then((request) =>
        handle(request, { services: opts.services, cspNonce: res.locals.cspNonce as string }),
      )
      .then((response) => (response ? sendWebResponse(res, response) : next()))
      .catch(next);
  });
}
