/**
 * The dataspace services' input parsers, for the forms' actions. Behind a `.server` module, so that
 * no page's browser script takes server/dataspace along (decision 0064).
 */
export { parseAssetInput } from "../../../server/dataspace/assets";
export { parseNegotiationRequest } from "../../../server/dataspace/negotiations";
export { parseOnboardingInput } from "../../../server/dataspace/participants";
