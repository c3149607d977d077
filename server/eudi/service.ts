import { createBrowserFlow } from "./browser-flow";
import type { EudiContext, EudiDeps } from "./context";
import { createDevWallet, type DevWallet } from "./dev-wallet";
import { createKeyStore } from "./keys";
import { createRemoteVerifier, type RemoteVerifier } from "./remote-verifier";
import { createEudiStore } from "./store";
import { createIssuerTrust } from "./trust";
import { createPresentationCheck } from "./verification";
import { createWalletEndpoints } from "./wallet-endpoints";

/**
 * EU Digital Identity Wallet sign-in (OpenID4VP, cross-device and same-device); the flow and what is
 * checked: server/eudi/README.md. Only the browser that started a sign-in (same sid AND the binding
 * cookie) receives the app session, exactly once (README.md, "Handing over the session exactly once").
 *
 * This module builds the shared context (context.ts) and composes browser-flow.ts (start, resume,
 * status), wallet-endpoints.ts (request object, direct_post) and verification.ts; transaction.ts
 * holds the states and answer types.
 */

export type { StatusResult } from "./transaction";
export type { EudiDeps } from "./context";

export async function createEudiService(deps: EudiDeps) {
  const { rel, graph, config } = deps;
  const store = await createEudiStore(rel);
  const keys = await createKeyStore(rel);
  const publicUrl = config.publicUrl;
  const responseUri = `${publicUrl}/auth/wallet/response`;
  const embeddedClientId = `redirect_uri:${responseUri}`;
  const remote: RemoteVerifier | undefined = config.eudi.verifierUrl
    ? createRemoteVerifier(config.eudi.verifierUrl, config.upstreamTimeoutMs)
    : undefined;
  const devIssuerIss = `${publicUrl}/wallet/dev-pid-issuer`;
  const devIssuer = config.eudi.devWallet
    ? async () => {
        const k = await keys.get("dev-pid-issuer");
        return { iss: devIssuerIss, kid: k.kid, publicKey: k.publicKey, privateKey: k.privateKey };
      }
    : undefined;
  const trust = createIssuerTrust({
    dev: devIssuer,
    trustedIssuers: config.eudi.trustedIssuers,
    timeoutMs: config.upstreamTimeoutMs,
  });
  const devWallet: DevWallet | undefined = devIssuer
    ? createDevWallet({
        keys,
        graph,
        issuer: devIssuer,
        publicUrl,
        runtime: deps.runtime,
        allowedOrigins: config.eudi.verifierUrl ? [config.eudi.verifierUrl] : [],
      })
    : undefined;

  const ctx: EudiContext = { deps, store, publicUrl, responseUri, embeddedClientId, remote, trust };
  const check = createPresentationCheck(ctx);

  return {
    devWallet,
    ...createBrowserFlow(ctx, check, { devIssuer: !!devIssuer }),
    ...createWalletEndpoints(ctx, check),
  };
}
export type EudiService = Awaited<ReturnType<typeof createEudiService>>;
