import type Provider from "oidc-provider";
import type { CookiesSetOptions, KoaContextWithOIDC } from "oidc-provider";
import { html, messagePage, page } from "./html";

/**
 * RP-initiated logout without a confirmation click.
 *
 * oidc-provider answers GET `end_session` with a page whose form the user must POST to
 * `end_session/confirm` (its own fallback auto-submits with an inline script). The app's logout
 * carries `id_token_hint`, so - as OpenID Connect RP-Initiated Logout 1.0 allows - this
 * middleware completes the logout on the server when the provider has validated the request and:
 * - the hint's `sub` is the signed-in account of the provider session, or
 * - the provider session has no signed-in account (nothing to confirm).
 * It then does what `end_session/confirm` with `logout=yes` does: revokes the session's grants
 * (and their codes and tokens), destroys the session, clears its cookie, and 303-redirects to the
 * validated `post_logout_redirect_uri` (with `state`), or to the provider's success page.
 * Any other request (no hint, or a hint for someone else) gets the confirmation page, whose form
 * works without scripts.
 */
export function completeLogoutWithoutPrompt(provider: Provider, sessionCookie: CookiesSetOptions) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>): Promise<void> => {
    await next();
    if (ctx.method !== "GET" || ctx.status !== 200) return;
    const oidc = ctx.oidc as KoaContextWithOIDC["oidc"] | undefined;
    if (oidc?.route !== "end_session" || !oidc.session) return;

    const { session } = oidc;
    const hintSubject = oidc.entities.IdTokenHint?.payload.sub;
    if (session.accountId && (!oidc.client || hintSubject !== session.accountId)) return;

    const { postLogoutRedirectUri, state } = (session.state ?? {}) as {
      postLogoutRedirectUri?: string;
      state?: string;
    };
    const grantIds = Object.values(session.authorizations ?? {}).flatMap((a) =>
      a.grantId ? [a.grantId] : [],
    );
    await Promise.all(grantIds.map((grantId) => revokeGrant(provider, grantId)));
    await session.destroy();
    ctx.cookies.set(provider.cookieName("session"), null, { ...sessionCookie, overwrite: true });
    provider.emit("end_session.success", ctx);

    let target = oidc.urlFor("end_session_success");
    if (postLogoutRedirectUri) {
      const url = new URL(postLogoutRedirectUri);
      if (state !== undefined) url.searchParams.set("state", state);
      target = url.href;
    }
    ctx.set("Cache-Control", "no-store");
    ctx.status = 303;
    ctx.redirect(target);
  };
}

async function revokeGrant(provider: Provider, grantId: string): Promise<void> {
  await Promise.all([
    provider.AccessToken.revokeByGrantId(grantId),
    provider.RefreshToken.revokeByGrantId(grantId),
    provider.AuthorizationCode.revokeByGrantId(grantId),
    provider.Grant.adapter.destroy(grantId),
  ]);
}

/**
 * `features.rpInitiatedLogout.logoutSource`: the confirmation page, for requests that need one.
 * `form` is the provider's hidden form (xsrf token) that the button submits with `logout=yes`;
 * "Stay signed in" just goes back to the app.
 */
export function logoutSource(homeUrl: string) {
  return (ctx: KoaContextWithOIDC, form: string): void => {
    ctx.type = "html";
    ctx.set("Cache-Control", "no-store");
    ctx.body = page(
      "Sign out",
      html`<section class="card">
        <h1>Sign out?</h1>
        <p>Do you want to sign out of the development identity provider of the Health Dataspace Hub?</p>
        ${{ html: form }}
        <div class="actions">
          <button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>
            Yes, sign me out
          </button>
          <a href="${homeUrl}">No, stay signed in</a>
        </div>
      </section>`,
    );
  };
}

/** `features.rpInitiatedLogout.postLogoutSuccessSource` */
export function postLogoutSuccessSource(signInUrl: string) {
  return (ctx: KoaContextWithOIDC): void => {
    ctx.type = "html";
    ctx.body = messagePage("Signed out", "You are signed out of the development identity provider.", {
      href: signInUrl,
      text: "Sign in again",
    });
  };
}
