import type { IncomingMessage } from "node:http";
import type { Config } from "../config";

/**
 * Which request counts against which rate limit, and for which client (docs/decisions/0045); the
 * counts are kept in the relational store (server/storage/rate-limits.ts).
 */

/**
 * The path a limit is judged on, as the pages' router matches it: decoded, in any case, without a
 * trailing slash or Remix's `.data` (so `/Auth/Login`, `/%61uth/login` and `/auth/login.data` count as
 * `/auth/login`).
 */
function limitPath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape is judged as given
  }
  path = path.toLowerCase().replace(/\.data$/, "");
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** the limited requests by method (HEAD as GET) and path */
const LIMITS = new Map<string, keyof Config["rateLimits"]>([
  ["GET /auth/login", "signin"],
  ["GET /auth/wallet", "wallet"],
  ["POST /api/auth/eudi/start", "wallet"],
  ["POST /api/app-accounts/challenge", "challenge"],
  ["POST /api/app-accounts", "appAccount"],
  ["POST /api/patient/app-pairing", "pairing"],
  ["POST /api/patient/app-devices", "pairing"],
]);

/** which limit a request counts against, if any: by method and path, before anything reads it */
export function rateLimitOf(method: string, pathname: string): keyof Config["rateLimits"] | undefined {
  const path = limitPath(pathname);
  const limit = LIMITS.get(`${method === "HEAD" ? "GET" : method} ${path}`);
  // the embedded provider's password form (not its abort button)
  if (method === "POST" && /^\/idp\/interaction\/[^/]+$/i.test(path)) return "password";
  return limit;
}

/** a peer on this machine: the only proxy whose X-Forwarded-* headers are trusted */
export const isLoopback = (address: string | undefined) =>
  !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));

/**
 * The client a request is counted for: the peer's address, or, from a proxy on the loopback (the same
 * trust as for X-Forwarded-Host, server/http/remix-answer.ts), the address that proxy appended last to
 * X-Forwarded-For.
 */
export function clientAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? "unknown";
  const forwarded = req.headers["x-forwarded-for"];
  if (!isLoopback(peer) || typeof forwarded !== "string") return peer;
  const last = forwarded.slice(forwarded.lastIndexOf(",") + 1).trim();
  return last && last.length <= 64 ? last : peer;
}
