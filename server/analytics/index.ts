/**
 * The public entry of the analytics capability (docs/decisions/0015): the clinical reading toolkit the
 * other insight capabilities share. The analytics service is not exported here: it reads federated/,
 * which reads this toolkit, so exporting it here would close a cycle.
 */
export { num, round, str } from "./scan";
export type { Concept, ConceptCache, ConceptDictionary, ConceptKind } from "./concepts";
export {
  AGE_BANDS,
  AGE_REFERENCE_DATE,
  ageAt,
  ageBandOf,
  GENDERS,
  intersect,
  tally,
  type AgeBand,
  type Gender,
  type OmopIndex,
  type OmopIndexCache,
} from "./omop-index";
export { holderName } from "./holders";
export {
  describeConcept,
  describedConcept,
  examplesOf,
  normalizeTerm,
  resolveTerm,
  type Resolution,
} from "./terminology";
