import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { PERSONAS, type Persona } from "../../server/auth/personas";
import { ROUTES, type HttpMethod } from "../../server/http/route-table";
import { startFaultProxy, type FaultFilter, type FaultProxy } from "../support/fault-proxy";

/**
 * The hub signed in through a real Keycloak (started by scripts/real-systems/keycloak-pass.mjs with the
 * realm deploy/keycloak/realm.json imported as the README says): Keycloak's own login page in chromium,
 * the claims its tokens carry, the route table's authorisation for those sessions, sign-out, revocation,
 * and Keycloak stopped, slow or answering nonsense. Everything reaches Keycloak through the fault proxy
 * (tests/support/fault-proxy.ts) at KEYCLOAK_URL, which this file starts in front of KEYCLOAK_UPSTREAM_URL.
 */
const KEYCLOAK_URL = process.env.KEYCLOAK_URL ?? "";
const REALM = "ehds";
const NO_ROLE = "your account has no role in the Health Dataspace Hub";
const UNREACHABLE = "The identity provider is not reachable. Try again in a moment.";
/** the pass's hub (tests/keycloak/playwright.config.ts): UPSTREAM_TIMEOUT_MS, OIDC_SESSION_CHECK/GRACE_SECONDS */
const UPSTREAM_TIMEOUT_MS = 5000;
const CHECK_MS = 5000;
const GRACE_MS = 20_000;

test.describe.configure({ mode: "serial" });
test.skip(!KEYCLOAK_URL, "runs in the Keycloak pass (KEYCLOAK_URL unset)");

let proxy: FaultProxy;
/** the hub's calls to the realm's token endpoint (sign-in and session re-check; not the admin's token) */
const tokenCalls: FaultFilter = (method, path) =>
  method === "POST" && path.startsWith(`/realms/${REALM}/protocol/openid-connect/token`);
test.beforeAll(async () => {
  proxy = await startFaultProxy({
    routes: { "": process.env.KEYCLOAK_UPSTREAM_URL ?? "" },
    port: Number(process.env.KEYCLOAK_PROXY_PORT),
    // longer than the hub's UPSTREAM_TIMEOUT_MS
    slowMs: 8000,
    forwardedHeaders: true,
  });
});
test.afterAll(async () => {
  await proxy?.close();
});

/** Keycloak's login form: username (pre-filled from login_hint), password, submit; back at the hub */
async function signInThroughKeycloak(page: Page, username: string, password = username): Promise<void> {
  await page.goto(`/auth/login?login_hint=${encodeURIComponent(username)}&returnTo=%2F`);
  await expect(page).toHaveURL((u) => u.href.startsWith(`${KEYCLOAK_URL}/realms/${REALM}/`));
  await expect(page.locator("#username")).toHaveValue(username);
  await page.locator("#password").fill(password);
  await page.locator("#kc-login").click();
  await page.waitForURL((u) => !u.href.startsWith(KEYCLOAK_URL));
}

async function adminToken(request: APIRequestContext): Promise<string> {
  const res = await request.post(`${KEYCLOAK_URL}/realms/master/protocol/openid-connect/token`, {
    form: {
      grant_type: "password",
      client_id: "admin-cli",
      username: process.env.KEYCLOAK_ADMIN_USER ?? "",
      password: process.env.KEYCLOAK_ADMIN_PASSWORD ?? "",
    },
  });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function admin(request: APIRequestContext, method: string, path: string, data?: unknown) {
  const token = await adminToken(request);
  return request.fetch(`${KEYCLOAK_URL}/admin/realms/${REALM}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    ...(data === undefined ? {} : { data }),
  });
}

/** the user of the hub session `page` holds (undefined: none) */
async function sessionUser(page: Page): Promise<object | undefined> {
  return ((await (await page.request.get("/api/auth/session")).json()) as { user?: object }).user;
}

/** the Keycloak sessions of a user, ended with the admin API (`DELETE /sessions/{id}`); resolves when the last DELETE answered */
async function revokeSessions(request: APIRequestContext, username: string): Promise<number> {
  const users = (await (await admin(request, "GET", `/users?username=${username}&exact=true`)).json()) as {
    id: string;
  }[];
  const sessions = (await (await admin(request, "GET", `/users/${users[0].id}/sessions`)).json()) as {
    id: string;
  }[];
  expect(sessions.length).toBeGreaterThan(0);
  const token = await adminToken(request);
  for (const s of sessions) {
    const res = await request.delete(`${KEYCLOAK_URL}/admin/realms/${REALM}/sessions/${s.id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status()).toBe(204);
  }
  return Date.now();
}

/** the hub's session cookie of a persona signed in through Keycloak (filled by the first test) */
const cookies = new Map<string, string>();

async function freshPage(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

test.describe("every persona signs in through Keycloak's login page", () => {
  for (const persona of PERSONAS) {
    test(`${persona.username}: home, roles, organisation, DID, patient record`, async ({ browser }) => {
      const { context, page } = await freshPage(browser);
      await signInThroughKeycloak(page, persona.username);
      await expect(page).toHaveURL((u) => u.pathname === "/");
      await expect(page.getByTestId("whoami")).toContainText(persona.name);
      await expect(page.getByTestId("whoami")).toContainText(persona.organisation);
      await expect(page.getByTestId("whoami")).toHaveAttribute("data-roles", persona.roles.join(" "));
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, ${persona.name}`);

      const session = (await (await page.request.get("/api/auth/session")).json()) as {
        user: { username: string; roles: string[]; organisation: string; participantDid: string | null };
      };
      expect(session.user).toMatchObject({
        username: persona.username,
        roles: persona.roles,
        organisation: persona.organisation,
        participantDid: persona.participantDid ?? null,
      });
      if (persona.patientId) await expectOwnRecord(page, persona);

      const cookie = (await context.cookies()).find((c) => c.name === "app-auth.session-token");
      expect(cookie).toBeDefined();
      cookies.set(persona.username, `${cookie!.name}=${cookie!.value}`);
      await context.close();
    });
  }
});

/** the token's patient_id is the one record the patient may open: their own answers, another's is refused */
async function expectOwnRecord(page: Page, persona: Persona) {
  const own = await page.request.get(`/api/patient/profile?patientId=${persona.patientId}`);
  expect(own.status()).toBe(200);
  expect(await own.text()).toContain(persona.patientId!);
  for (const other of PERSONAS.filter((p) => p.patientId && p.patientId !== persona.patientId))
    expect((await page.request.get(`/api/patient/profile?patientId=${other.patientId}`)).status()).toBe(403);
}

const concrete = (path: string) =>
  path
    .replace(":rest*", "session")
    .replace(/:([A-Za-z]+)/g, (_, name: string) => (name === "participant" ? "lmc" : `probe-${name}`));

test("the route table's authorisation holds for sessions made through Keycloak", async ({ request }) => {
  expect(cookies.size).toBe(PERSONAS.length);
  let checked = 0;
  for (const r of ROUTES) {
    for (const [method, spec] of Object.entries(r.methods) as [
      HttpMethod,
      NonNullable<(typeof r.methods)[HttpMethod]>,
    ][]) {
      if (spec.access.kind !== "session") continue;
      const allowed = spec.access.roles;
      for (const persona of PERSONAS) {
        const hasBody = method !== "GET" && method !== "DELETE";
        const res = await request.fetch(concrete(r.path), {
          method,
          maxRedirects: 0,
          headers: {
            cookie: cookies.get(persona.username)!,
            ...(hasBody ? { "content-type": "application/json" } : {}),
          },
          ...(hasBody ? { data: "{}" } : {}),
        });
        const body = (await res.json()) as { error?: string };
        const admitted = allowed === "any" || allowed.some((role) => persona.roles.includes(role));
        const where = `${method} ${r.path} as ${persona.username}`;
        if (admitted)
          expect(
            res.status() === 401 || (res.status() === 403 && /role/i.test(body.error ?? "")),
            where,
          ).toBe(false);
        else expect(res.status(), where).toBe(403);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(400);
});

test("sign-out ends the Keycloak session too: the next sign-in asks for the password again", async ({
  browser,
}) => {
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "researcher");
  await expect(page.getByTestId("whoami")).toBeVisible();

  // without a hub sign-out, Keycloak's own session signs the browser in again without a password
  await context.clearCookies({ name: "app-auth.session-token" });
  await page.goto("/auth/login?returnTo=%2F");
  await expect(page.getByTestId("whoami")).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((u) => u.pathname === "/auth/signin" && !u.href.startsWith(KEYCLOAK_URL));
  expect((await (await page.request.get("/api/auth/session")).json()) as object).toEqual({});
  await page.goto("/auth/login?returnTo=%2F");
  await expect(page).toHaveURL((u) => u.href.startsWith(`${KEYCLOAK_URL}/realms/${REALM}/`));
  await expect(page.locator("#password")).toBeVisible();
  await context.close();
});

test("sign-out ends the Keycloak session from the hub too: a browser that never follows the redirect still has to type its password", async ({
  browser,
}) => {
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "researcher");
  await expect(page.getByTestId("whoami")).toBeVisible();

  // the sign-out's answer is taken, its redirect to Keycloak's end-session endpoint is not followed
  const origin = new URL(page.url()).origin;
  const res = await page.request.post("/auth/logout", { maxRedirects: 0, headers: { Origin: origin } });
  expect(res.status()).toBe(302);
  expect(res.headers().location).toContain(`/realms/${REALM}/protocol/openid-connect/logout`);
  expect((await (await page.request.get("/api/auth/session")).json()) as object).toEqual({});

  // Keycloak's cookie is still in the browser, but the session it names has ended
  await page.goto("/auth/login?returnTo=%2F");
  await expect(page).toHaveURL((u) => u.href.startsWith(`${KEYCLOAK_URL}/realms/${REALM}/`));
  await expect(page.locator("#password")).toBeVisible();
  await context.close();
});

test("a Keycloak user with none of the hub's roles gets a page that says so, and no session", async ({
  browser,
  request,
}) => {
  const username = `norole-${Date.now()}`;
  const created = await admin(request, "POST", "/users", {
    username,
    enabled: true,
    email: `${username}@example.org`,
    emailVerified: true,
    firstName: "No",
    lastName: "Role",
    credentials: [{ type: "password", value: "no-role-password", temporary: false }],
  });
  expect(created.status()).toBe(201);
  const { context, page } = await freshPage(browser);
  const answers: number[] = [];
  page.on("response", (r) => answers.push(r.status()));
  await signInThroughKeycloak(page, username, "no-role-password");
  await expect(page).toHaveURL((u) => u.pathname === "/auth/signin");
  await expect(page.getByRole("alert")).toContainText(NO_ROLE);
  expect(answers.filter((s) => s >= 500)).toEqual([]);
  expect((await (await page.request.get("/api/auth/session")).json()) as object).toEqual({});
  await context.close();
});

test("a session revoked with Keycloak's admin API stops working in the hub at once (back-channel logout)", async ({
  browser,
  request,
}) => {
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "regulator");
  await expect(page.getByTestId("whoami")).toBeVisible();
  // Keycloak's token endpoint reset for the hub: its re-check cannot end the session, only the logout token
  await proxy.setMode("reset", tokenCalls);
  expect(await sessionUser(page)).toBeDefined();
  const revokedAt = await revokeSessions(request, "regulator");
  // the DELETE answers after Keycloak has posted the logout token to the hub: gone within a second
  await expect.poll(() => sessionUser(page), { timeout: 1000 }).toBeUndefined();
  console.log(`revoked session refused by the hub ${Date.now() - revokedAt} ms after the DELETE`);
  expect((await page.request.get("/api/overview")).status()).toBe(401);
  await proxy.setMode("ok");
  await context.close();
});

test("a session revoked in Keycloak whose back-channel logout never arrives ends in the hub within the re-check bound", async ({
  browser,
  request,
}) => {
  const [client] = (await (await admin(request, "GET", "/clients?clientId=hub")).json()) as {
    id: string;
    attributes: Record<string, string>;
  }[];
  const backchannel = client.attributes["backchannel.logout.url"];
  const setBackchannel = async (url: string) =>
    expect(
      (
        await admin(request, "PUT", `/clients/${client.id}`, {
          ...client,
          attributes: { ...client.attributes, "backchannel.logout.url": url },
        })
      ).status(),
    ).toBe(204);
  // Keycloak posts the logout token where nothing listens (port 9): it never reaches the hub
  await setBackchannel("http://127.0.0.1:9/auth/backchannel-logout");
  try {
    const { context, page } = await freshPage(browser);
    await signInThroughKeycloak(page, "clinic");
    await expect(page.getByTestId("whoami")).toBeVisible();
    expect(await sessionUser(page)).toBeDefined();
    const revokedAt = await revokeSessions(request, "clinic");
    // the next request after the re-check interval asks Keycloak (within UPSTREAM_TIMEOUT_MS), which says
    // the session is gone
    await expect
      .poll(() => sessionUser(page), { timeout: CHECK_MS + UPSTREAM_TIMEOUT_MS + 1000, intervals: [250] })
      .toBeUndefined();
    console.log(
      `revoked session (no back-channel logout) refused by the hub ${Date.now() - revokedAt} ms later`,
    );
    expect((await page.request.get("/api/overview")).status()).toBe(401);
    await context.close();
  } finally {
    await setBackchannel(backchannel);
  }
});

test("roles changed in Keycloak reach the hub's session within the re-check bound; no role left ends it", async ({
  browser,
  request,
}) => {
  const [kcUser] = (await (await admin(request, "GET", "/users?username=clinic&exact=true")).json()) as {
    id: string;
  }[];
  const role = async (name: string) =>
    (await (await admin(request, "GET", `/roles/${name}`)).json()) as object;
  const mappings = `/users/${kcUser.id}/role-mappings/realm`;
  const holder = await role("DATA_HOLDER");
  const participant = await role("CONNECTOR_USER_PARTICIPANT");
  const roles = async (page: Page) => ((await sessionUser(page)) as { roles?: string[] } | undefined)?.roles;
  const bound = { timeout: CHECK_MS + UPSTREAM_TIMEOUT_MS + 1000, intervals: [250] };
  try {
    const { context, page } = await freshPage(browser);
    await signInThroughKeycloak(page, "clinic");
    await expect(page.getByTestId("whoami")).toBeVisible();
    expect(await roles(page)).toContain("DATA_HOLDER");
    expect((await page.request.get("/api/patient")).status()).toBe(200);
    expect((await admin(request, "DELETE", mappings, [holder])).status()).toBe(204);
    const changedAt = Date.now();
    await expect.poll(() => roles(page), bound).toEqual(["CONNECTOR_USER_PARTICIPANT"]);
    console.log(`role removed in Keycloak: gone from the hub's session ${Date.now() - changedAt} ms later`);
    expect((await page.request.get("/api/patient")).status()).toBe(403);
    // no role of the hub left: the session ends
    expect((await admin(request, "DELETE", mappings, [participant])).status()).toBe(204);
    await expect.poll(() => sessionUser(page), bound).toBeUndefined();
    expect((await page.request.get("/api/overview")).status()).toBe(401);
    await context.close();
  } finally {
    expect((await admin(request, "POST", mappings, [holder, participant])).status()).toBe(204);
  }
});

test("Keycloak slow, answering garbage, 500, cut or reset at its token endpoint: sign-in comes back with the message in time, a session goes on within the grace, sign-in works once Keycloak answers", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const { context: before, page: signedIn } = await freshPage(browser);
  await signInThroughKeycloak(signedIn, "lmc");
  await expect(signedIn.getByTestId("whoami")).toBeVisible();
  const signedInAt = Date.now();

  await proxy.setMode("slow", tokenCalls);
  // its re-check due, the request waits for Keycloak at most UPSTREAM_TIMEOUT_MS and the session goes on
  await signedIn.waitForTimeout(Math.max(0, signedInAt + CHECK_MS - Date.now()));
  let started = Date.now();
  const during = await signedIn.request.get("/api/auth/session");
  const checkMs = Date.now() - started;
  expect(during.status()).toBe(200);
  expect(((await during.json()) as { user?: object }).user).toBeDefined();
  expect(checkMs).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1000);
  console.log(`session re-check with Keycloak slow: answered in ${checkMs} ms, session kept`);

  for (const mode of ["slow", "garbage", "500", "cut", "reset"] as const) {
    await proxy.setMode(mode, tokenCalls);
    const { context, page } = await freshPage(browser);
    const answers: number[] = [];
    let callbackMs = -1;
    page.on("response", (r) => {
      answers.push(r.status());
      if (new URL(r.url()).pathname === "/auth/callback") callbackMs = Date.now() - started;
    });
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/auth/callback") started = Date.now();
    });
    await signInThroughKeycloak(page, "researcher");
    await expect(page).toHaveURL((u) => u.pathname === "/auth/signin");
    await expect(page.getByRole("alert")).toContainText(UNREACHABLE);
    expect(callbackMs, mode).toBeGreaterThanOrEqual(0);
    expect(callbackMs, mode).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1000);
    expect(
      answers.filter((s) => s >= 500),
      mode,
    ).toEqual([]);
    expect(await sessionUser(page)).toBeUndefined();
    console.log(`Keycloak's token endpoint ${mode}: the callback answered in ${callbackMs} ms`);
    await context.close();
  }

  // Keycloak answers again: sign-in works without a restart of the hub
  await proxy.setMode("ok");
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "researcher");
  await expect(page.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");
  await context.close();
  await before.close();
});

/**
 * The operator console re-initialises the relying-party client (as an administrator, `admin` holding the
 * session): discovery and the signing keys are fetched again at the next sign-in. Keycloak answers meanwhile.
 */
async function renewRelyingParty(admin: Page): Promise<void> {
  await proxy.setMode("ok");
  const restarted = await admin.request.post("/api/admin/components/identity-provider/restart", {
    headers: { "content-type": "application/json" },
    data: "{}",
  });
  expect(restarted.status(), await restarted.text()).toBeLessThan(300);
}

test("Keycloak's discovery slow, garbage, 500, cut or reset when the hub fetches it again: sign-in start answers the sign-in page with the message in time, health says so, sign-in works once it answers", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const discovery: FaultFilter = (method, path) =>
    method === "GET" && path.startsWith(`/realms/${REALM}/.well-known/openid-configuration`);
  const idp = async () => ((await (await request.get("/api/health")).json()) as { idp: boolean }).idp;
  const { context: operator, page: admin } = await freshPage(browser);
  await signInThroughKeycloak(admin, "admin");
  await expect(admin.getByTestId("whoami")).toBeVisible();
  for (const mode of ["garbage", "500", "cut", "reset", "slow"] as const) {
    await renewRelyingParty(admin);
    await proxy.setMode(mode, discovery);
    const started = Date.now();
    const res = await request.get("/auth/login?returnTo=%2F", { maxRedirects: 0 });
    const ms = Date.now() - started;
    expect(res.status(), mode).toBe(302);
    const location = new URL(res.headers().location ?? "", "http://hub");
    expect(location.pathname, mode).toBe("/auth/signin");
    expect(location.searchParams.get("error"), mode).toBe(UNREACHABLE);
    expect(ms, mode).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1000);
    await expect.poll(idp, { timeout: 15_000 }).toBe(false);
    console.log(`Keycloak's discovery ${mode}: sign-in start answered in ${ms} ms, health idp: false`);
  }
  await proxy.setMode("ok");
  await expect.poll(idp, { timeout: 15_000 }).toBe(true);
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "researcher");
  await expect(page.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");
  await context.close();
  await operator.close();
});

test("Keycloak's signing keys slow, garbage, 500, cut or reset when the hub fetches them again: the callback answers the sign-in page with the message in time", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const certs: FaultFilter = (method, path) =>
    method === "GET" && path.startsWith(`/realms/${REALM}/protocol/openid-connect/certs`);
  const { context: operator, page: admin } = await freshPage(browser);
  await signInThroughKeycloak(admin, "admin");
  await expect(admin.getByTestId("whoami")).toBeVisible();
  for (const mode of ["garbage", "500", "cut", "reset", "slow"] as const) {
    await renewRelyingParty(admin);
    await proxy.setMode(mode, certs);
    const { context, page } = await freshPage(browser);
    const answers: number[] = [];
    let sent = 0;
    let callbackMs = -1;
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/auth/callback") sent = Date.now();
    });
    page.on("response", (r) => {
      answers.push(r.status());
      if (new URL(r.url()).pathname === "/auth/callback") callbackMs = Date.now() - sent;
    });
    await signInThroughKeycloak(page, "researcher");
    await expect(page).toHaveURL((u) => u.pathname === "/auth/signin");
    await expect(page.getByRole("alert")).toContainText(UNREACHABLE);
    expect(callbackMs, mode).toBeGreaterThanOrEqual(0);
    expect(callbackMs, mode).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1000);
    expect(
      answers.filter((st) => st >= 500),
      mode,
    ).toEqual([]);
    console.log(`Keycloak's signing keys ${mode}: the callback answered in ${callbackMs} ms`);
    await context.close();
  }
  await proxy.setMode("ok");
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "researcher");
  await expect(page.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");
  await context.close();
  await operator.close();
});

test("a forged logout token ends nothing", async ({ browser, request }) => {
  const { context, page } = await freshPage(browser);
  await signInThroughKeycloak(page, "lmc");
  const header = Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url");
  const claims = Buffer.from(
    JSON.stringify({ iss: process.env.OIDC_ISSUER, aud: "hub", sub: "x", events: {} }),
  ).toString("base64url");
  const res = await request.post("/auth/backchannel-logout", {
    form: { logout_token: `${header}.${claims}.` },
  });
  expect(res.status()).toBe(400);
  expect((await (await page.request.get("/api/auth/session")).json()) as object).toHaveProperty("user");
  await context.close();
});

test("Keycloak killed: sign-in answers its page with a message in time, health says so, sessions go on; restarted: sign-in works", async ({
  browser,
  request,
}) => {
  const control = process.env.KEYCLOAK_CONTROL_URL;
  test.skip(!control, "needs the pass's control of Keycloak (KEYCLOAK_CONTROL_URL)");
  test.setTimeout(480_000);
  const { context, page } = await freshPage(browser);
  // when the browser sent the callback: the hub made (and Keycloak confirmed) the session after that
  let signedInAt = 0;
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/auth/callback") signedInAt = Date.now();
  });
  await signInThroughKeycloak(page, "admin");
  await expect(page.getByTestId("whoami")).toBeVisible();
  expect(signedInAt).toBeGreaterThan(0);

  expect((await request.post(`${control}/kill`)).status()).toBe(204);
  const started = Date.now();
  const res = await request.get("/auth/login?returnTo=%2F", { maxRedirects: 0 });
  const ms = Date.now() - started;
  // with discovery kept from earlier sign-ins the hub sends the browser on to Keycloak's login page (which
  // the browser then cannot reach); without it, back to its own sign-in page with the message
  expect(res.status()).toBe(302);
  const location = new URL(res.headers().location ?? "", "http://hub");
  if (location.pathname === "/auth/signin")
    expect(location.searchParams.get("error")).toBe(
      "The identity provider is not reachable. Try again in a moment.",
    );
  else expect(location.href.startsWith(`${KEYCLOAK_URL}/realms/${REALM}/`)).toBe(true);
  expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1000);
  // a session made before goes on working while Keycloak cannot confirm it, within the grace
  expect(await sessionUser(page)).toBeDefined();
  await expect
    .poll(async () => ((await (await request.get("/api/health")).json()) as { idp: boolean }).idp, {
      timeout: 30_000,
    })
    .toBe(false);
  // past the grace (20 s after its last confirmation at Keycloak) it is refused
  await expect
    .poll(() => sessionUser(page), {
      timeout: GRACE_MS + CHECK_MS + UPSTREAM_TIMEOUT_MS + 2000,
      intervals: [500],
    })
    .toBeUndefined();
  const refusedAfter = Date.now() - signedInAt;
  expect(refusedAfter).toBeGreaterThanOrEqual(GRACE_MS);
  console.log(`session unconfirmed while Keycloak is away: refused ${refusedAfter} ms after its sign-in`);

  const restartedAt = Date.now();
  expect((await request.post(`${control}/restart`, { timeout: 450_000 })).status()).toBe(204);
  console.log(`Keycloak restarted in ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
  const { context: second, page: again } = await freshPage(browser);
  await signInThroughKeycloak(again, "researcher");
  await expect(again.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");
  await expect
    .poll(async () => ((await (await request.get("/api/health")).json()) as { idp: boolean }).idp, {
      timeout: 30_000,
    })
    .toBe(true);
  // Keycloak back, it confirms the session made before the kill again (or says it ended); a
  // just-restarted Keycloak's first token refreshes can take a re-check or two on a loaded machine
  // (CI of 30 Nov 03:44: not confirmed within one re-check, 12 s)
  await expect
    .poll(() => sessionUser(page), { timeout: 3 * (CHECK_MS + UPSTREAM_TIMEOUT_MS) + 2000 })
    .toBeDefined();
  await second.close();
  await context.close();
});
