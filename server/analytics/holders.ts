import { ORGANISATIONS } from "../auth/personas";

/** a data holder's display name by its slug (the slug itself for an unknown holder) */
export function holderName(slug: string): string {
  return ORGANISATIONS.find((o) => o.slug === slug)?.displayName ?? slug;
}

/** every data holder's slug, sorted: those of the indexed persons and every DATA_HOLDER organisation */
export function allHolders(index: { holders: string[] }): string[] {
  const organisations = ORGANISATIONS.filter((o) => o.role === "DATA_HOLDER").map((o) => o.slug);
  return [...new Set([...index.holders, ...organisations])].sort();
}
