import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../config";
import { openDatabase, type Db } from "../../storage/database";
import { createRateLimits, type RateLimits } from "../../storage/rate-limits";
import type { Relational, SqlDialect } from "../../storage/relational";
import { IDP_CLIENT_ID } from "./provider";
import {
  browse,
  CookieJar,
  follow,
  formBody,
  pkcePair,
  startIdp,
  type RunningIdp,
} from "../../../tests/support/idp";
import { databaseFor, dropDatabase, testDatabaseUrl } from "../../../tests/support/postgres";
import { storeDialects } from "../../../tests/support/relational";
import { openPostgresRelational } from "../../storage/relational/postgres";
import { openSqliteRelational } from "../../storage/relational/sqlite";

/**
 * The embedded provider's password form under the hub's one rate-limit mechanism (decision 0045,
 * server/storage/rate-limits.ts): wrong passwords counted per username in the relational store, here
 * with a budget of 3 in 15 minutes, on the embedded store and (with DATABASE_URL) on PostgreSQL. (The
 * per-client count of every post is the edge's, server/app.ts, tested in tests/api/rate-limits.test.ts.)
 */

const BUDGET = 3;
const WINDOW_MS = 15 * 60 * 1000;

describe.each(storeDialects())("the password form's limit per username (%s)", (dialect: SqlDialect) => {
  let dataDir: string;
  let db: Db;
  let rel: Relational;
  /** the PostgreSQL database of this pass, if any */
  let databaseUrl: string | undefined;
  let limits: RateLimits;
  let idp: RunningIdp;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "idp-limit-"));
    db = openDatabase(dataDir);
    databaseUrl = dialect === "postgres" ? await databaseFor(testDatabaseUrl()!, dataDir) : undefined;
    rel = databaseUrl ? await openPostgresRelational(databaseUrl) : openSqliteRelational(db);
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      RATE_LIMIT_PASSWORD_USER: `${BUDGET}/15m`,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    limits = await createRateLimits({ config, rel, db });
    idp = await startIdp(rel, dataDir, 0, { rateLimits: limits });
  });

  afterAll(async () => {
    await idp?.stop();
    await limits?.close();
    if (databaseUrl) {
      await rel.close();
      await dropDatabase(testDatabaseUrl()!, databaseUrl);
    }
    db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** a fresh sign-in of `username` up to its form: the form's URL and the browser's cookies */
  async function signInForm(username: string) {
    const jar = new CookieJar();
    const { challenge } = pkcePair();
    const params = new URLSearchParams({
      client_id: IDP_CLIENT_ID,
      redirect_uri: `${idp.publicUrl}/auth/callback`,
      response_type: "code",
      scope: "openid profile email",
      state: "s",
      nonce: "n",
      code_challenge: challenge,
      code_challenge_method: "S256",
      login_hint: username,
    });
    const { response, url } = await follow(
      jar,
      `${idp.issuer}/auth?${params}`,
      `${idp.publicUrl}/auth/callback`,
    );
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    return { jar, url };
  }

  /** one post of the password form: status, Retry-After and page */
  async function post(form: { jar: CookieJar; url: string }, username: string, password: string) {
    const r = await browse(form.jar.clone(), form.url, formBody({ username, password }));
    return { status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.text() };
  }

  it("refuses the attempt after the budget of wrong passwords with 429 and Retry-After on the form, right password or not; another username is not held up", async () => {
    const form = await signInForm("lmc");
    for (let i = 0; i < BUDGET; i++) expect((await post(form, "lmc", `wrong-${i}`)).status).toBe(401);
    for (const password of ["wrong-again", "lmc"]) {
      const refused = await post(form, "lmc", password);
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(refused.body).toMatch(/Too many wrong passwords for this username: try again in \d+ s\./);
      expect(refused.body).toContain('name="password"');
    }
    const other = await signInForm("regulator");
    expect((await post(other, "regulator", "regulator")).status).toBe(303);
  });

  it("counts no post refused for its type (415 JSON): the interaction goes on and the right password then signs in", async () => {
    const form = await signInForm("patient1");
    for (let i = 0; i < BUDGET + 1; i++) {
      const r = await browse(form.jar.clone(), form.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "patient1", password: `wrong-${i}` }),
      });
      expect([r.status, await r.json()]).toEqual([
        415,
        {
          error: 'The sign-in form must be sent as application/x-www-form-urlencoded, not "application/json"',
        },
      ]);
    }
    expect((await post(form, "patient1", "patient1")).status).toBe(303);
  });

  it("gives a burst of wrong passwords sent at once no more tries than the budget", async () => {
    const form = await signInForm("clinic");
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(form, "clinic", `guess-${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - BUDGET);
  });

  it("never counts a right password, and takes the right one again once the window has passed", async () => {
    const form = await signInForm("trustcenter");
    for (let i = 0; i < BUDGET + 2; i++)
      expect((await post(await signInForm("trustcenter"), "trustcenter", "trustcenter")).status).toBe(303);
    for (let i = 0; i < BUDGET; i++) expect((await post(form, "trustcenter", `wrong-${i}`)).status).toBe(401);
    expect((await post(form, "trustcenter", "trustcenter")).status).toBe(429);

    const now = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => now() + WINDOW_MS + 1000);
    const later = await signInForm("trustcenter");
    expect((await post(later, "trustcenter", "trustcenter")).status).toBe(303);
  });
});
