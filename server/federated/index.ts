/**
 * The federated-query capability's public entry (docs/decisions/0015): what a question is allowed
 * to count (the ODRL scope of a user), the small-cell suppression of counts and the query log.
 * The analytics and question services count under the same rules. The federated service and its
 * handlers are wired by the container and the route wiring.
 */
export { isSupervisory, odrlScope, scopeFor, type OdrlScope } from "./scope";
export {
  isSmall,
  leaf,
  listable,
  MIN_K,
  partsOf,
  protect,
  publicReason,
  publicSuppressionReason,
  published,
  publishedCount,
  type CountNode,
  type PublicSuppressionReason,
  type PublishedCount,
} from "./suppression";
export { createQueryLog } from "../audit/query-log";
export type { FederatedDeps } from "./service";
