import { ORGANISATIONS, type Organisation } from "../auth/personas";
import { uriDecoded } from "./protocol";

/**
 * Identity rules of the participant registry (spec section 4, GET /api/participants): slugs of
 * DIDs and display names, the built-in table of the five known organisations, and the order in
 * which a participant's display name is resolved.
 */

/** The last colon-separated segment of the URL-decoded DID, lowercased. */
export function slugOfDid(did: string): string {
  const parts = uriDecoded(did).split(":");
  return (parts[parts.length - 1] ?? "").toLowerCase();
}

/** Lowercased, whitespace turned into hyphens, other non-alphanumeric characters removed. */
export function slugOfDisplayName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, "-")
    .replace(/[^a-z0-9-]/g, "");
}

/** The first label of a did:web host (`did:web:alpha-klinik.de:participant` -> `alpha-klinik`). */
function domainStem(did: string): string | undefined {
  const m = /^did:web:([^:]+)/.exec(did);
  if (!m) return undefined;
  return uriDecoded(m[1]).split(/[.:]/)[0]?.toLowerCase() || undefined;
}

/**
 * The built-in table: the five organisations, each known by its slug and by the stem of its DID's
 * domain (the slug a virtual-connector deployment derives, e.g. `did:web:identityhub%3A7083:alpha-klinik`).
 */
export const KNOWN_ORGANISATIONS: readonly (Organisation & { slugs: readonly string[] })[] =
  ORGANISATIONS.map((o) => ({
    ...o,
    slugs: [...new Set([o.slug, domainStem(o.did)].filter((s): s is string => !!s))],
  }));

/** The table entry for a participant: its exact DID first, then its slug. */
export function knownOrganisation(
  did: string | undefined,
  slug: string | undefined,
): Organisation | undefined {
  if (did) {
    const exact = KNOWN_ORGANISATIONS.find((o) => o.did === did);
    if (exact) return exact;
  }
  if (slug) return KNOWN_ORGANISATIONS.find((o) => o.slugs.includes(slug));
  return undefined;
}

export function findOrganisationByName(name: string | undefined): Organisation | undefined {
  if (!name) return undefined;
  return KNOWN_ORGANISATIONS.find((o) => o.displayName === name || o.slug === name);
}

/** What the tenant manager tells about a tenant, reduced to what name resolution needs. */
export interface TenantIdentity {
  tenantId: string;
  displayName?: string;
  /** the DID of the tenant's participant, once provisioned */
  did?: string;
  /** the participant context ids provisioned for the tenant */
  contextIds: string[];
}

/** The tenant of a participant context: by context id or exact DID, then by the spec's slug rules. */
export function tenantFor(
  ctx: { id: string; did: string; slug: string },
  tenants: readonly TenantIdentity[],
): TenantIdentity | undefined {
  return (
    tenants.find((t) => t.contextIds.includes(ctx.id) || (!!t.did && t.did === ctx.did)) ??
    tenants.find((t) => !!t.did && slugOfDid(t.did) === ctx.slug) ??
    tenants.find((t) => !!t.displayName && slugOfDisplayName(t.displayName) === ctx.slug)
  );
}

/**
 * Display name, in the spec's order: (1) the tenant manager's display name, (2) the built-in
 * table, (3) the slug, (4) the first 12 characters of the context id.
 */
export function resolveDisplayName(
  ctx: { id: string; did: string; slug: string },
  tenants: readonly TenantIdentity[] | undefined,
): string {
  const fromTenant = tenants ? tenantFor(ctx, tenants)?.displayName : undefined;
  if (fromTenant) return fromTenant;
  const known = knownOrganisation(ctx.did || undefined, ctx.slug || undefined);
  if (known) return known.displayName;
  if (ctx.slug) return ctx.slug;
  return ctx.id.slice(0, 12);
}

/** Role from the built-in table (DATA_HOLDER, DATA_USER or HDAB); empty for unknown slugs. */
export function resolveRole(ctx: { did: string; slug: string }): string {
  return knownOrganisation(ctx.did || undefined, ctx.slug || undefined)?.role ?? "";
}
