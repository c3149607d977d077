/**
 * The question capability's public entry (docs/decisions/0015): the question templates and the
 * text-to-Cypher proxy's address and probe, which the operator console checks. The question service
 * and its handlers are wired by the container and the route wiring.
 */
export { displayUrl, probeProxy } from "./proxy";
export { TEMPLATES } from "./templates";
