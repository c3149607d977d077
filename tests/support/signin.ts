/**
 * Signs in through the real OpenID flow of the embedded provider with plain HTTP: the app's
 * /auth/login → provider authorize → login form → callback → session cookie.
 */
export class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  get(name: string) {
    return this.cookies.get(name);
  }
  set(name: string, value: string) {
    this.cookies.set(name, value);
  }
}

export async function follow(
  url: string,
  jar: CookieJar,
  init: RequestInit = {},
  max = 15,
): Promise<Response> {
  let current = url;
  let req: RequestInit = init;
  for (let i = 0; i < max; i++) {
    const res = await fetch(current, {
      ...req,
      redirect: "manual",
      headers: { ...(req.headers ?? {}), cookie: jar.header() },
    });
    jar.store(res);
    const loc = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && loc) {
      current = new URL(loc, current).toString();
      req = {};
      continue;
    }
    return res;
  }
  throw new Error(`too many redirects from ${url}`);
}

/**
 * A signed-in user's JSON call: GET without a body, else POST of `body` as JSON; the status and the answer's
 * JSON (arbitrary, checked by the caller's assertions)
 */
export async function sendJson(
  user: Signed,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON
): Promise<{ status: number; body: any }> {
  const res = await user.api(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export interface Signed {
  jar: CookieJar;
  /** where the sign-in landed after the callback (the page of its returnTo) and its status */
  landed: { url: string; status: number };
  cookie: string;
  /** fetch against the server with the session cookie */
  api: (path: string, init?: RequestInit) => Promise<Response>;
}

/**
 * Signs in; once more when the hub said its identity provider did not answer in time (the sign-in
 * page's "not reachable" error: on a loaded 2-core machine the embedded provider's token call can
 * outlast the hub's time-out). Any other failure, or a second one, throws.
 */
export async function signIn(
  baseUrl: string,
  username: string,
  password = username,
  returnTo = "/",
  /** the browser's cookies before it signs in (a fresh jar: a browser that holds none) */
  jar = new CookieJar(),
): Promise<Signed> {
  try {
    return await signInOnce(baseUrl, username, password, returnTo, jar);
  } catch (e) {
    if (!(e instanceof ProviderTimedOut)) throw e;
    console.warn(`sign-in of ${username}: ${e.message}; once more`);
    return signInOnce(baseUrl, username, password, returnTo, jar);
  }
}

class ProviderTimedOut extends Error {}

/** the hub's sign-in page with its "not reachable" error (server/auth/oidc-client.ts UNREACHABLE) */
const unreachable = (url: string) =>
  /identity provider is not reachable/.test(new URL(url || "http://x/").searchParams.get("error") ?? "");

async function signInOnce(
  baseUrl: string,
  username: string,
  password: string,
  returnTo: string,
  jar: CookieJar,
): Promise<Signed> {
  const form = await follow(
    `${baseUrl}/auth/login?login_hint=${encodeURIComponent(username)}&returnTo=${encodeURIComponent(returnTo)}`,
    jar,
  );
  const html = await form.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action && unreachable(form.url)) throw new ProviderTimedOut(`no login form: ${form.url}`);
  if (!action) throw new Error(`no login form (status ${form.status}): ${html.slice(0, 300)}`);
  // relative to the form's page: the provider may live on another origin (OIDC_ISSUER)
  const done = await follow(new URL(action.replaceAll("&amp;", "&"), form.url || baseUrl).toString(), jar, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  });
  if (!jar.get("app-auth.session-token")) {
    if (unreachable(done.url)) throw new ProviderTimedOut(`the sign-in ended at ${done.url}`);
    throw new Error(`sign-in of ${username} did not yield a session (last status ${done.status})`);
  }
  return {
    jar,
    landed: { url: done.url, status: done.status },
    cookie: jar.header(),
    api: (path, init = {}) =>
      fetch(`${baseUrl}${path}`, {
        ...init,
        redirect: "manual",
        headers: { ...(init.headers ?? {}), cookie: jar.header() },
      }),
  };
}
