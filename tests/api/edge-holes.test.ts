import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-request";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * The smaller holes at the edge found by the attack of issue 34, each tried as an outside tester
 * would against the real server: under the default NODE_ENV (none set), on a DATA_DIR left lax by an
 * earlier version.
 */

let server: TestServer;
let dataDir: string;
const as = new Map<string, Signed>();
const mode = (p: string) => statSync(p).mode & 0o777;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "hub-edge-"));
  chmodSync(dataDir, 0o755);
  // a file left world-readable by an earlier version
  writeFileSync(path.join(dataDir, "left-over.txt"), "x", { mode: 0o644 });
  chmodSync(path.join(dataDir, "left-over.txt"), 0o644);
  // NODE_ENV empty: the default, as `node build/server/index.js` runs without it
  server = await startTestServer({ NODE_ENV: "" }, { dataDir });
  for (const u of ["researcher", "admin", "clinic"]) as.set(u, await signIn(server.url, u));
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the edge", () => {
  it("answers TRACE and other methods it never serves with 405, not 500", async () => {
    for (const method of ["TRACE", "PROPFIND"]) {
      for (const target of [
        "/",
        "/catalogue",
        "/api/assets",
        "/api/health",
        "/idp/.well-known/openid-configuration",
      ]) {
        const r = await rawRequest(server.url, target, { method });
        expect(r.status, `${method} ${target}`).toBe(405);
        expect(r.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
        if (target.startsWith("/api"))
          expect(JSON.parse(r.text)).toEqual({ error: `Method ${method} not allowed on ${target}` });
      }
    }
  });

  it("shows no stack trace or server path to anyone under the default NODE_ENV", async () => {
    const anonymous = await rawRequest(server.url, "/no-such-page");
    const signedIn = await as.get("admin")!.api("/no-such-page/deeper");
    const data = await as.get("admin")!.api("/no-such-page.data");
    for (const [status, text] of [
      [anonymous.status, anonymous.text],
      [signedIn.status, await signedIn.text()],
      [data.status, await data.text()],
    ] as const) {
      expect(status).toBe(404);
      expect(text).not.toContain(process.cwd());
      expect(text).not.toMatch(/node_modules|\.js:\d+:\d+|at [A-Za-z.]+ \(/);
    }
  });

  it("keeps DATA_DIR 0700 and every file in it 0600, tightening what an earlier version left", () => {
    expect(mode(dataDir)).toBe(0o700);
    const files = readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(["hub.sqlite", "hub.sqlite-wal", "left-over.txt"]));
    for (const f of files) expect(`${f} ${mode(path.join(dataDir, f)).toString(8)}`).toBe(`${f} 600`);
  });

  it("creates a new DATA_DIR 0700 with its database 0600", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "hub-edge-new-"));
    const fresh = path.join(parent, "nested", "data");
    mkdirSync(path.dirname(fresh));
    const other = await startTestServer({}, { dataDir: fresh });
    try {
      expect(mode(fresh)).toBe(0o700);
      for (const f of readdirSync(fresh))
        expect(`${f} ${mode(path.join(fresh, f)).toString(8)}`).toBe(`${f} 600`);
    } finally {
      await other.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("sign-in", () => {
  it("survives a returnTo with characters beyond Latin-1, landing on that page", async () => {
    const signed = await signIn(server.url, "clinic", "clinic", "/catalogue?q=漢字 é");
    expect(signed.landed.status).toBe(200);
    expect(new URL(signed.landed.url).pathname + new URL(signed.landed.url).search).toBe(
      "/catalogue?q=%E6%BC%A2%E5%AD%97%20%C3%A9",
    );
  });

  it("answers a page's post whose body is not a form with 415 JSON before its action runs, changing nothing", async () => {
    const clinic = as.get("clinic")!;
    const catalogue = async () => (await (await clinic.api("/api/catalog")).json()).length;
    const before = await catalogue();
    for (const [type, body] of [
      ["application/json", JSON.stringify({ title: "Injected" })],
      ["text/plain", "title=Injected"],
      [undefined, "title=Injected"],
    ] as const) {
      const r = await clinic.api("/catalogue/new", {
        method: "POST",
        headers: type ? { "content-type": type } : {},
        body: type ? body : new Blob([body]),
      });
      expect(r.status, String(type)).toBe(415);
      expect(await r.json()).toEqual({
        error: "Content-Type must be application/x-www-form-urlencoded or multipart/form-data",
      });
    }
    expect(await catalogue()).toBe(before);
    // a form, and a post without a body, still reach the action
    const form = await clinic.api("/catalogue/new", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "title=",
    });
    expect(form.status).not.toBe(415);
    const lmc = await signIn(server.url, "lmc");
    expect((await lmc.api("/auth/logout", { method: "POST" })).status).not.toBe(415);
  });

  it("leaves no state cookie (state and PKCE verifier) behind once it has completed", async () => {
    const signed = await signIn(server.url, "lmc");
    expect(signed.cookie).toContain("app-auth.session-token=");
    expect(signed.cookie).not.toContain("app-auth.oidc-state");
  });
});

describe("identified data", () => {
  it("is never kept by a cache: pages and API answers say Cache-Control: no-store", async () => {
    const clinic = as.get("clinic")!;
    const admin = as.get("admin")!;
    const pages: [Signed, string][] = [
      [clinic, "/patients"],
      [clinic, "/patients/patient-000001"],
      [clinic, "/patients/patient-000001.data"],
      [clinic, "/graph/node?id=patient-000001"],
      [admin, "/audit"],
      [admin, "/patients/patient-000001"],
    ];
    for (const [who, p] of pages) {
      const r = await who.api(p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get("cache-control"), p).toBe("no-store");
    }
    for (const [who, p] of [
      [clinic, "/api/patient"],
      [clinic, "/api/patient/profile?patientId=patient-000001"],
      [clinic, "/api/patient/insights?patientId=patient-000001"],
      [admin, "/api/admin/audit"],
    ] as [Signed, string][]) {
      const r = await who.api(p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get("cache-control"), p).toBe("no-store");
    }
  });

  it("leaves the caching of static assets as it was", async () => {
    const html = await (await as.get("clinic")!.api("/catalogue")).text();
    const asset = /\/build\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    const r = await fetch(`${server.url}${asset}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toMatch(/max-age=\d{4,}/);
  });
});

describe("stored links", () => {
  it("are http(s) URLs only: javascript: and data: are refused with 400 JSON", async () => {
    const researcher = as.get("researcher")!;
    const admin = as.get("admin")!;
    const post = (who: Signed, p: string, body: unknown) =>
      who.api(p, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const url of [
      "javascript:alert(document.cookie)",
      "data:text/html,<script>alert(1)</script>",
      "ftp://x.example/p",
    ]) {
      const publish = await post(researcher, "/api/compliance/results", {
        resultId: "RES-2026-0001",
        action: "publish",
        url,
      });
      expect(publish.status, url).toBe(400);
      expect(((await publish.json()) as { error: string }).error).toMatch(/http or https URL/);
      for (const field of ["license", "datasetType"]) {
        const dataset = await post(admin, "/api/catalog", {
          id: `ds-link-${field}`,
          title: "Links",
          [field]: url,
        });
        expect(dataset.status, `${field} ${url}`).toBe(400);
        expect(((await dataset.json()) as { error: string }).error).toMatch(/http or https URL/);
      }
      const conforms = await post(admin, "/api/catalog", {
        id: "ds-link-c",
        title: "Links",
        conformsTo: [url],
      });
      expect(conforms.status).toBe(400);
    }
    const ok = await post(admin, "/api/catalog", {
      id: "ds-link-ok",
      title: "Links",
      license: "https://creativecommons.org/licenses/by/4.0/",
    });
    expect(ok.status).toBe(201);
  });
});

describe("another organisation's records", () => {
  it("answer the same 404 as an unknown id, page and API alike", async () => {
    const list = (await (await as.get("admin")!.api("/api/compliance/applications")).json()) as {
      id: string;
      organisation: string;
    }[];
    const other = list.find((a) => a.organisation !== "PharmaCo Research AG");
    expect(other).toBeTruthy();
    const researcher = as.get("researcher")!;
    const page = await researcher.api(`/applications/${other!.id}`);
    const unknownPage = await researcher.api("/applications/DAA-2026-9999");
    expect([page.status, unknownPage.status]).toEqual([404, 404]);
    const api = await researcher.api(`/api/compliance/applications?id=${other!.id}`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: `Application ${other!.id} not found` });
    const unknown = await researcher.api("/api/compliance/applications?id=DAA-2026-9999");
    expect(await unknown.json()).toEqual({ error: "Application DAA-2026-9999 not found" });
    // the access body still sees it
    expect((await as.get("admin")!.api(`/api/compliance/applications?id=${other!.id}`)).status).toBe(200);
  });
});
