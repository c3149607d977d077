/**
 * Security response headers, the Content-Security-Policy of pages and the cross-origin check of
 * mutating requests (DESIGN.md "http": security headers). Web standards only.
 *
 * Decisions:
 * - `securityHeaders` holds the headers that are the same on every response. The CSP is per response:
 *   a page rendered by Remix allows exactly its own inline scripts by their SHA-256 hashes
 *   (`cspFor(hashes, …)`, computed once per rendered document, server/http/render-cache.ts), so a
 *   kept document is the same bytes for every answer and is compressed once; other pages (the offline
 *   notice, the API reference) allow their inline parts by a fresh nonce (`cspFor(nonce, …)`).
 * - Referrer-Policy is `strict-origin-when-cross-origin`, not `no-referrer`: URLs may carry patient
 *   ids, and this policy sends only the origin to other sites, while `no-referrer` would make browsers
 *   send `Origin: null` on same-origin form posts, which the origin check below must reject.
 * - Strict-Transport-Security (https only) has no `includeSubDomains` or `preload`: the hub may live on
 *   a domain it shares with other services, and those are the domain owner's decisions.
 * - Every method other than GET, HEAD and OPTIONS counts as mutating (not only POST, PUT, PATCH, DELETE).
 * - Origins are compared after URL normalisation (case, default port, path and trailing slash dropped);
 *   an allowed entry that is not a URL matches nothing, and `Origin: null` is always foreign.
 */
import { random16 } from "../config/random";
import type { RequestHead } from "./request-head";

export function securityHeaders(opts: { https: boolean }): Record<string, string> {
  return {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    ...(opts.https ? { "Strict-Transport-Security": "max-age=31536000" } : {}),
  };
}

/**
 * The CSP of an HTML page. Its inline scripts are allowed by a nonce (a string) or by the SHA-256
 * hashes of their texts (a list, base64; none allows no inline script). `formActionOrigins` are further
 * origins forms may post to, e.g. the identity provider's (any URL is reduced to its origin, so the OIDC
 * issuer URL can be passed as is).
 */
export function cspFor(inline: string | readonly string[], formActionOrigins: string[] = []): string {
  const base64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
  if (typeof inline === "string" && !base64.test(inline)) throw new Error("a CSP nonce must be base64");
  if (typeof inline !== "string" && !inline.every((h) => base64.test(h)))
    throw new Error("a CSP hash must be base64");
  const scripts =
    typeof inline === "string" ? [`'nonce-${inline}'`] : [...new Set(inline)].map((h) => `'sha256-${h}'`);
  const formActions = formActionOrigins.map((url) => {
    const origin = normaliseOrigin(url);
    if (origin === null) throw new Error(`form-action origin "${url}" is not an http(s) URL`);
    return origin;
  });
  return [
    "default-src 'self'",
    ["script-src 'self'", ...scripts].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    ["form-action 'self'", ...new Set(formActions)].join(" "),
    "frame-ancestors 'none'",
  ].join("; ");
}

/** 16 random bytes, base64. */
export function generateNonce(): string {
  return btoa(String.fromCharCode(...random16()));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The cross-site check of mutating requests (the /api dispatcher, and server/app.ts for the rest): the
 * Origin header when there is one must be an allowed origin; without one, a browser that says
 * `Sec-Fetch-Site: cross-site`, or sends a Referer of another site, is a cross-site request too. A
 * Referer that is not an http(s) URL counts as foreign; clients that send none of these headers (curl,
 * the companion app, the crawler) are not browsers and pass.
 */
export function isCrossSiteRequest(
  request: Pick<RequestHead, "method" | "headers">,
  allowedOrigins: string[],
): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  const origin = request.headers.get("Origin");
  if (origin !== null) return !isAllowed(origin, allowedOrigins);
  if (request.headers.get("Sec-Fetch-Site") === "cross-site") return true;
  const referer = request.headers.get("Referer");
  return referer !== null && !isAllowed(referer, allowedOrigins);
}

/** whether a URL's origin is one of `allowedOrigins`, both normalised; never for what is not an http(s) URL */
const isAllowed = (url: string, allowedOrigins: string[]) => {
  const origin = normaliseOrigin(url);
  return origin !== null && allowedOrigins.some((allowed) => normaliseOrigin(allowed) === origin);
};

/** `https://Hub.Example.org:443/x/` -> `https://hub.example.org`; null unless an http(s) URL. */
export function normaliseOrigin(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}
