import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import {
  ARBITRARY_QUERY,
  startNlqBackendDouble,
  TEMPLATE_SHAPED_QUERY,
  type NlqBackendDouble,
} from "../support/nlq-backend-double";

/**
 * Black-box: the natural-language proxy path (NLQ_PROXY_URL) against a real HTTP back end that
 * fails, hangs, answers garbage, proposes a write, or proposes read-only queries with and
 * without a template's shape; and a hub whose back end cannot be reached at all.
 */
let double: NlqBackendDouble;
let server: TestServer;
let unreachable: TestServer;
let researcher: Signed;
let admin: Signed;
const UNMATCHED = "Summarise the outcomes of patients whose name starts with A";
const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const ask = (who: Signed, question: string) => who.api("/api/nlq", post({ question }));

beforeAll(async () => {
  double = await startNlqBackendDouble("fail");
  const deadPort = await freePort();
  [server, unreachable] = await Promise.all([
    startTestServer({ NLQ_PROXY_URL: double.url, UPSTREAM_TIMEOUT_MS: "1500" }),
    startTestServer({ NLQ_PROXY_URL: `http://127.0.0.1:${deadPort}/nlq`, UPSTREAM_TIMEOUT_MS: "1500" }),
  ]);
  [researcher, admin] = await Promise.all([signIn(server.url, "researcher"), signIn(server.url, "admin")]);
});
afterAll(async () => {
  await Promise.all([server?.close(), unreachable?.close()]);
  await double?.close();
});

describe("NLQ proxy path", () => {
  it("does not ask the back end when a template matches", async () => {
    const before = double.requests.length;
    const res = await ask(researcher, "How many patients have asthma?");
    expect(res.status).toBe(200);
    expect((await res.json()).backend).toBe("templates");
    expect(double.requests.length).toBe(before);
  });

  it("reports the back end and whether it is reachable", async () => {
    const b = await (await researcher.api("/api/nlq/backend")).json();
    expect(b).toMatchObject({
      mode: "templates+proxy",
      backend: double.url,
      proxy: { url: double.url, reachable: true, status: 200 },
    });
    const dead = await signIn(unreachable.url, "researcher");
    const d = await (await dead.api("/api/nlq/backend")).json();
    expect(d.proxy).toMatchObject({ reachable: false, status: null });
    const res = await ask(dead, UNMATCHED);
    expect(res.status).toBe(502);
    expect((await res.json()).error).toMatch(/^The language back end failed: it could not be reached/);
  });

  it("502 {error} when the back end fails, hangs past the time-out, or answers something unusable", async () => {
    const cases: [NlqBackendDouble["mode"], RegExp][] = [
      ["fail", /answered HTTP 500/],
      ["hang", /no answer within 1500 ms/],
      ["garbage", /did not answer JSON/],
      ["no-query", /without a Cypher query/],
    ];
    for (const [mode, why] of cases) {
      double.mode = mode;
      const started = Date.now();
      const res = await ask(researcher, UNMATCHED);
      expect({ mode, status: res.status }).toEqual({ mode, status: 502 });
      const body = await res.json();
      expect(body.error).toMatch(/^The language back end failed/);
      expect(body.error).toMatch(why);
      if (mode === "hang") expect(Date.now() - started).toBeLessThan(6000);
    }
    // the question reached the back end, with the schema and the templates
    const last = double.requests.at(-1)!;
    expect(last.question).toBe(UNMATCHED);
    expect(last.body).toMatchObject({ dialect: "cypher", schema: { layers: expect.any(Object) } });
  });

  it("refuses a proposed write with 502 and runs nothing", async () => {
    const before = (await (await admin.api("/api/analytics")).json()).totals;
    const patientsBefore = (await (await admin.api("/api/graph?layer=l3&limit=1")).json()).meta.totalNodes;
    double.mode = "write";
    const res = await ask(researcher, UNMATCHED);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toMatch(/not read-only: DETACH DELETE is not allowed/);
    expect(body.error).toMatch(/Nothing was run/);
    expect(body.detail).toContain("DETACH DELETE");
    expect((await (await admin.api("/api/analytics")).json()).totals).toEqual(before);
    expect((await (await admin.api("/api/graph?layer=l3&limit=1")).json()).meta.totalNodes).toBe(
      patientsBefore,
    );
  });

  it("runs a read-only proposal that has a template's shape, with the caller's scope", async () => {
    double.mode = "template";
    const res = await ask(researcher, UNMATCHED);
    expect(res.status).toBe(200);
    const a = await res.json();
    expect(a).toMatchObject({
      matched: false,
      backend: "proxy",
      executed: true,
      template: { id: "condition-count" },
    });
    expect(a.query.text).toBe(TEMPLATE_SHAPED_QUERY);
    expect(a.parameters.condition).toMatchObject({ code: "195967001", display: "Asthma" });
    expect(a.proxy).toMatchObject({ url: double.url, explanation: "counts patients with asthma" });
    expect(a.scope.k).toBe(5);
    expect(a.rows).toHaveLength(1);
  });

  it("shows, but never runs, a read-only proposal of no template's shape", async () => {
    double.mode = "arbitrary";
    const res = await ask(researcher, UNMATCHED);
    expect(res.status).toBe(200);
    const a = await res.json();
    expect(a).toMatchObject({
      backend: "proxy",
      executed: false,
      rows: [],
      query: { text: ARBITRARY_QUERY },
    });
    expect(a.reason).toMatch(/was not run/);
    expect(a.reason).toMatch(/person-level rows/);
  });
});
