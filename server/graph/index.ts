/**
 * The graph capability's public entry (docs/decisions/0015): the data model, the store interface
 * every other capability reads through, the version-keyed cache, and the parts of the synthetic
 * generator that others replay (the question oracle, the OMOP index, the operator's directory).
 * The graph service and its handlers are not here: they read server/privacy, which reads this
 * model, and the container and the route wiring import them directly.
 */
export {
  anyCase,
  LAYERS,
  LAYER_LABELS,
  LAYER_NAMES,
  type GraphEdge,
  type GraphNode,
  type GraphResponse,
  type Layer,
  type Mutation,
  type NodeRecord,
  type Properties,
  type PropertyValue,
  type Relationship,
} from "./model";
export { withDeadline } from "./neo4j-reachability";
export { findAll, labelScopedCache, scanNodes } from "./scan";
export { linked } from "./store";
export type { GraphStore, NodeQuery } from "./store";
export { CATALOGUE_ID, datasetsOf } from "./synthetic/catalogue";
export { buildTimeline, type ClinicalTimeline } from "./synthetic/clinical";
export { DEFAULT_SEED } from "./synthetic/generate";
export { ORGANISATIONS } from "./synthetic/organisations";
export { drawProfile, REFERENCE_DAY, STREAM, type PatientProfile } from "./synthetic/population";
export { isoDate, Prng } from "./synthetic/prng";
