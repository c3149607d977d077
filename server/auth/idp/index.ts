/** The embedded development OpenID provider; `handle` answers /idp and every path below it. */
export {
  createIdentityProvider,
  IDP_CLIENT_ID,
  IDP_COOKIE_NAMES,
  IDP_MOUNT_PATH,
  IDP_TTL_SECONDS,
  type IdentityProvider,
  type IdentityProviderOptions,
} from "./provider";
export { idpClientSecret } from "./keys";
export { CLAIMS_BY_SCOPE, SCOPES as IDP_SCOPES } from "./account";
