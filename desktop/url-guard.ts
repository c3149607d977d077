/**
 * Where the window may go. Inside the window: the app's own origin (the local server, or the
 * hosted stack), its identity provider, and the desktop's own pages. Anything else is either an
 * allow-listed https page opened in the user's browser, or refused. No new windows, ever.
 */

export type NavigationDecision = "allow" | "external" | "deny";

/** hosts whose https pages the app links to (standards, licences, the regulation); subdomains count */
export const EXTERNAL_ALLOW_LIST = [
  "europa.eu",
  "eur-lex.europa.eu",
  "health.ec.europa.eu",
  "hl7.org",
  "fhir.org",
  "ohdsi.org",
  "ohdsi.github.io",
  "snomed.org",
  "loinc.org",
  "who.int",
  "w3.org",
  "creativecommons.org",
  "spdx.org",
  "eclipse-edc.github.io",
  "github.com",
];

export interface GuardPolicy {
  /** origins the window shows: the local server's, or the hosted stack's */
  appOrigins: string[];
  /** identity provider origins (sign-in pages) */
  idpOrigins: string[];
  /** file:// prefix of the desktop's own pages */
  pagesPrefix: string;
  externalAllowList?: string[];
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

const hostAllowed = (host: string, list: string[]) => list.some((h) => host === h || host.endsWith(`.${h}`));

/** may the window open `url` itself? */
export function navigationDecision(url: string, policy: GuardPolicy): NavigationDecision {
  const u = parse(url);
  if (!u) return "deny";
  if (u.protocol === "file:")
    return url.startsWith(policy.pagesPrefix) && !u.pathname.includes("..") ? "allow" : "deny";
  if (u.protocol !== "http:" && u.protocol !== "https:") return "deny";
  if (u.username || u.password) return "deny";
  if (policy.appOrigins.includes(u.origin) || policy.idpOrigins.includes(u.origin)) return "allow";
  return externalDecision(url, policy.externalAllowList) ? "external" : "deny";
}

/** may `url` be opened in the user's browser? https and allow-listed only */
export function externalDecision(url: string, allowList = EXTERNAL_ALLOW_LIST): boolean {
  const u = parse(url);
  return !!u && u.protocol === "https:" && !u.username && !u.password && hostAllowed(u.hostname, allowList);
}

/** the identity provider's origin of a hosted stack: its embedded provider (/idp) unless told otherwise */
export function idpOriginsFor(appOrigin: string, issuer?: string): string[] {
  const out = [appOrigin];
  const i = issuer ? parse(issuer) : null;
  if (i && (i.protocol === "https:" || i.hostname === "127.0.0.1" || i.hostname === "localhost"))
    out.push(i.origin);
  return [...new Set(out)];
}
