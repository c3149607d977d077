/**
 * The dataspace services' input parsers, for the forms' actions. Behind a `.server` module: a route
 * that imported them from server/dataspace shipped those modules (with the error model's caches and
 * the personas) in its browser script (decision 0064).
 */
export { parseAssetInput } from "../../../server/dataspace/assets";
export { parseNegotiationRequest } from "../../../server/dataspace/negotiations";
export { parseOnboardingInput } from "../../../server/dataspace/participants";
