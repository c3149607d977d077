import type { ActionFunctionArgs } from "@remix-run/node";

/**
 * POST only, from the identity provider (server to server): OIDC back-channel logout. The realm the
 * project ships (deploy/keycloak/realm.json) names this address as the hub client's back-channel logout URL.
 */
export const action = ({ request, context }: ActionFunctionArgs) =>
  context.services.oidc.backchannelLogout(request);
