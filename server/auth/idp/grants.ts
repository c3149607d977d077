import type Provider from "oidc-provider";
import type { Grant, KoaContextWithOIDC } from "oidc-provider";
import { SCOPES } from "./account";

interface GrantRequest {
  accountId: string;
  clientId: string;
  /** an existing grant to extend, when there is one */
  grantId?: string;
  scopes: Iterable<string>;
  claims: Iterable<string>;
}

const supportedScopes = new Set<string>(SCOPES);

/**
 * The grant of a first-party client: whatever it asks for within the supported scopes, with no
 * consent screen. Extends the existing grant when it belongs to the same account and client.
 */
export async function firstPartyGrant(provider: Provider, request: GrantRequest): Promise<Grant> {
  const existing = request.grantId ? await provider.Grant.find(request.grantId) : undefined;
  const grant =
    existing && existing.accountId === request.accountId && existing.clientId === request.clientId
      ? existing
      : new provider.Grant({ accountId: request.accountId, clientId: request.clientId });
  grant.addOIDCScope([...request.scopes].filter((s) => supportedScopes.has(s)));
  grant.addOIDCClaims([...request.claims]);
  await grant.save();
  return grant;
}

/** `loadExistingGrant`: every client of the embedded provider is first-party. */
export async function loadFirstPartyGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
  const { client, session } = ctx.oidc;
  const accountId = session?.accountId;
  if (!client || !accountId) return undefined;
  const consent = ctx.oidc.result?.consent as { grantId?: string } | undefined;
  return firstPartyGrant(ctx.oidc.provider, {
    accountId,
    clientId: client.clientId,
    grantId: consent?.grantId ?? session.grantIdFor(client.clientId),
    scopes: ctx.oidc.requestParamScopes,
    claims: ctx.oidc.requestParamClaims ?? [],
  });
}
