import { sentBody } from "../http/contract";
import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import type { EudiService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface EudiServices {
  eudi: EudiService;
}

/** JSON with any number of Set-Cookie headers (json() sets headers, which would keep only one cookie). */
export function jsonWithCookies(body: unknown, status: number, cookies: readonly string[]): Response {
  const res = json(body, status);
  if (!cookies.length) return res;
  const headers = new Headers(res.headers);
  for (const c of cookies) headers.append("Set-Cookie", c);
  return new Response(JSON.stringify(body), { status, headers });
}

/** /api/auth/eudi/*: public routes (spec section 5 rule 3); see service.ts for the design. */
export const eudiHandlers: HandlerMap<EudiServices> = {
  "POST /api/auth/eudi/start": async (ctx) => {
    const { body: result, setCookie } = await ctx.services.eudi.start({ returnTo: sentBody(ctx).returnTo });
    return jsonWithCookies(result, 201, [setCookie]);
  },
  "GET /api/auth/eudi/status": async ({ services, head, input }) => {
    const { body, setCookie } = await services.eudi.status(input.query.sid as string, head);
    return jsonWithCookies(body, 200, setCookie ?? []);
  },
};
