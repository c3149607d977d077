import { PERSONAS } from "../../server/auth/personas";
import { pick } from "./pick";

/**
 * The demonstration personas as the persona pickers show them (the landing page, sign-in with the
 * embedded provider, the static mode's switcher). Behind a `.server` module, so that no page's browser
 * script takes the personas along (decision 0064).
 */
export const personaCards = () =>
  PERSONAS.map((p) => pick(p, "username name organisation description roles"));

/** an organisation of the demonstration by slug, for loaders (behind this module for the same reason) */
export { findOrganisation } from "../../server/auth/personas";
