import { PERSONAS } from "../personas";
import { html, page } from "./html";

function demoAccounts() {
  return html`<section class="card" aria-labelledby="demo-accounts">
    <h2 id="demo-accounts">Demo accounts</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Username</th>
          <th scope="col">Person</th>
          <th scope="col">Roles</th>
          <th scope="col">What they do</th>
        </tr>
      </thead>
      <tbody>
        ${PERSONAS.map(
          (p) =>
            html`<tr>
              <td><code>${p.username}</code></td>
              <td>${p.name}<br />${p.organisation}</td>
              <td>${p.roles.join(", ")}</td>
              <td>${p.description}</td>
            </tr> `,
        )}
      </tbody>
    </table>
  </section>`;
}

/**
 * The embedded provider's sign-in form: fields `username` (prefilled: from `login_hint` or the last
 * attempt) and `password`, posted to `action` (the interaction URL); "Cancel" posts to `action`/abort.
 */
export function renderLoginPage(action: string, username: string, error?: string): string {
  return page(
    "Sign in",
    html`<section class="card">
        <h1>Sign in</h1>
        <p class="sub">Health Dataspace Hub · development identity provider</p>
        ${error ? html`<div class="error" role="alert">${error}</div>` : ""}
        <form method="post" action="${action}">
          <label for="username">Username</label>
          <input
            id="username"
            name="username"
            type="text"
            value="${username}"
            autocomplete="username"
            autocapitalize="none"
            spellcheck="false"
            required${username ? "" : html` autofocus`}
          />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required${username ? html` autofocus` : ""}
          />
          <div class="actions">
            <button type="submit">Sign in</button>
          </div>
        </form>
        <form method="post" action="${action}/abort">
          <div class="actions"><button type="submit" class="secondary">Cancel</button></div>
        </form>
        <p class="note">
          <strong>Development only:</strong> the password of each demo account is its username (for example
          <code>clinic</code> / <code>clinic</code>).
        </p>
      </section>
      ${demoAccounts()}`,
  );
}
