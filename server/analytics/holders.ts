import { ORGANISATIONS } from "../auth/personas";

/** a data holder's display name by its slug (the slug itself for an unknown holder) */
export function holderName(slug: string): string {
  return ORGANISATIONS.find((o) => o.slug === slug)?.displayName ?? slug;
}
