/**
 * The public entry of the analytics capability for other capabilities (docs/decisions/0015): the
 * clinical reading toolkit that natural-language and federated queries, the EEHRxF profiles and
 * the overview share — graph scans, the concept dictionary and the resolution of terms against
 * it, the OMOP person index and holder names. The analytics service and its handlers are wired by the container, not imported here:
 * the service reads federated/ (scope, suppression), which reads this toolkit, so exporting it
 * here would close a cycle.
 */
export { findAll, labelScopedCache, num, round, scanNodes, str } from "./scan";
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
export { allHolders, holderName } from "./holders";
export {
  describeConcept,
  describedConcept,
  examplesOf,
  normalizeTerm,
  resolveTerm,
  type Resolution,
} from "./terminology";
