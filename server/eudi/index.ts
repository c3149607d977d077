/**
 * The EUDI wallet capability's public entry (docs/decisions/0015): the helpers the patient app shares
 * with it. The sign-in service and its handlers are wired by the container and the route wiring.
 */
export { qrDataUrl } from "./qr";
export { random, sha256b64u } from "./sd-jwt";
