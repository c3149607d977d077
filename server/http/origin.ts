import type { RequestHead } from "./request-head";
import { isForeignOrigin, normaliseOrigin } from "./security-headers";

/**
 * The cross-site check of mutating /api requests: the Origin header when there is one (see
 * security-headers.ts), else the Referer — a browser that sends no Origin but a Referer of another
 * site is a cross-site request too. A Referer that is not an http(s) URL counts as foreign;
 * clients that send neither header (curl, the companion app, the crawler) are not browsers and pass.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isCrossSiteRequest(request: RequestHead, allowedOrigins: string[]): boolean {
  if (isForeignOrigin(request, allowedOrigins)) return true;
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  if (request.headers.get("Origin") !== null) return false;
  const referer = request.headers.get("Referer");
  if (referer === null) return false;
  const origin = normaliseOrigin(referer);
  return origin === null || !allowedOrigins.some((allowed) => normaliseOrigin(allowed) === origin);
}
