import type { IncomingMessage } from "node:http";
import { isIPv6 } from "node:net";
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
  // each callback with a state cookie that holds sends one token request to the provider
  ["GET /auth/callback", "callback"],
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
 * X-Forwarded-For; an IPv6 client by its /64, however written (decision 0120).
 */
export function clientAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? "unknown";
  const forwarded = req.headers["x-forwarded-for"];
  if (!isLoopback(peer) || typeof forwarded !== "string") return clientKey(peer);
  const last = forwarded.slice(forwarded.lastIndexOf(",") + 1).trim();
  return clientKey(last && last.length <= 64 ? last : peer);
}

/**
 * An address as its client: an IPv4-mapped IPv6 address as its IPv4 address, any other IPv6 address as
 * the first four groups of its /64 (one subscriber's prefix: each of its 2^64 addresses is the same
 * client), anything else as given.
 */
function clientKey(address: string): string {
  const ip = address.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!isIPv6(ip)) return address;
  const [head, tail] = ip.split("::").map((part) => (part ? part.split(":") : []));
  // a dotted IPv4 tail is two groups; "::" stands for the groups neither side writes
  const written = head.length + (tail ?? []).reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail ? [...head, ...Array<string>(8 - written).fill("0"), ...tail] : head;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
