import { readFileSync } from "node:fs";
import { findPersona, PERSONAS } from "../../server/auth/personas";
import { personaSessionUser } from "../../server/auth/user";
import { GRAPH_LIMIT_DEFAULT } from "../../server/graph/service";
import { viewerOf } from "../../server/privacy/policy";
import { overviewOf } from "../../app/lib/graph/overview";
import { slimEdge, slimNode } from "../../app/lib/graph/slim.server";
import { staticStateOf } from "../../server/static-mode/replay";
import { DEMO_WRITE_MESSAGE, OFFLINE_DEMO_LACKS } from "../../server/static-mode/registry";
import { drawingDataPath, walkViews } from "../../scripts/static-mode/views";
import type { WalkedPage } from "../../scripts/static-mode/walk";
import { startTestServer, type TestServer } from "../support/server";

/**
 * `APP_MODE=static`: the real server (built Remix app) answering every view from fixtures/static.
 * The walk visits every view for every persona, following every link, as `npm run fixtures` did:
 * it fails when a view needs data the fixtures lack, or when a view answers differently from the
 * recording (fixtures/static/views.json).
 */

let server: TestServer;
let pages: WalkedPage[];

beforeAll(async () => {
  server = await startTestServer({ APP_MODE: "static" });
  pages = await walkViews(null, server.services, { server: { origin: server.url } });
}, 240_000);
afterAll(async () => {
  await server?.close();
});

describe("static mode", () => {
  it("walks every view for every persona without a missing fixture or a server error", () => {
    const misses = staticStateOf(server.services)?.misses ?? [];
    expect(misses.filter((m) => m.kind === "error").map((m) => m.call)).toEqual([]);
    expect(pages.filter((p) => p.status >= 500).map((p) => `${p.status} /as/${p.persona}${p.path}`)).toEqual(
      [],
    );
    expect(new Set(pages.map((p) => p.persona))).toEqual(new Set(PERSONAS.map((p) => p.username)));
    expect(pages.length).toBeGreaterThan(100);
  });

  it("answers every view with the status the live server gave it when the fixtures were recorded", () => {
    const recorded = (
      JSON.parse(readFileSync("fixtures/static/views.json", "utf8")) as {
        views: { persona: string; path: string; status: number }[];
      }
    ).views;
    const live = new Map(recorded.map((v) => [`/as/${v.persona}${v.path}`, v.status]));
    const differing = pages.filter(
      (p) => live.has(`/as/${p.persona}${p.path}`) && live.get(`/as/${p.persona}${p.path}`) !== p.status,
    );
    expect(
      differing.map(
        (p) => `/as/${p.persona}${p.path}: ${p.status}, recorded ${live.get(`/as/${p.persona}${p.path}`)}`,
      ),
    ).toEqual([]);
    // most of what was recorded is still walked (a view that vanished from every page shrinks this)
    expect(pages.filter((p) => live.has(`/as/${p.persona}${p.path}`)).length).toBeGreaterThan(
      recorded.length * 0.8,
    );
  });

  it("answers the explorer's drawing, from the fixtures, for every walked graph view", () => {
    // loaded by a fetcher after the page (decision 0027): the walk asks for it as the explorer does
    const views = pages.filter((p) => p.path.split("?")[0] === "/graph" && p.status === 200);
    const drawings = pages.filter((p) => p.path.startsWith("/graph/drawing.data"));
    expect(views.length).toBeGreaterThan(0);
    expect(drawings.map((p) => `${p.persona} ${p.path}`).sort()).toEqual(
      views.map((p) => `${p.persona} ${drawingDataPath(p.path.slice("/graph".length))}`).sort(),
    );
    for (const d of drawings) {
      expect({ path: d.path, status: d.status }).toEqual({ path: d.path, status: 200 });
      // a drawing ({ graph, focus, focusError }), not a failure ({ error })
      expect(d.body).toContain('"focusError"');
      expect(d.body).not.toContain('"error"');
    }
  });

  it("opens every node of the explorer's first view (its overview) in the inspector, from the fixtures", async () => {
    const g = await server.services.graphQueries.graph(
      { layer: "all", persona: null, limit: GRAPH_LIMIT_DEFAULT },
      { viewer: viewerOf(personaSessionUser(findPersona("admin")!)) },
    );
    const first = overviewOf({ nodes: g.nodes.map(slimNode), edges: g.edges.map(slimEdge) }).nodes;
    expect(first.length).toBeGreaterThan(5);
    const opened = new Set(
      pages
        .filter((p) => p.persona === "admin" && p.status === 200 && p.path.startsWith("/graph/node.data?"))
        .map((p) => new URL(p.path, "http://x").searchParams.get("id")),
    );
    expect(first.map((n) => n.id).filter((id) => !opened.has(id))).toEqual([]);
  });

  it("turns the API off (404 JSON)", async () => {
    const res = await fetch(`${server.url}/api/catalog`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: "The API is off in static mode: this deployment serves fixtures only",
    });
  });

  it("keeps the persona in the path: no cookie, each tab its own persona, the banner on every page", async () => {
    const a = await fetch(`${server.url}/as/clinic/catalogue`);
    const b = await fetch(`${server.url}/as/researcher/catalogue`);
    expect(a.headers.get("set-cookie")).toBeNull();
    const [ha, hb] = [await a.text(), await b.text()];
    expect(ha).toContain("Dr. Anna Weber");
    expect(hb).toContain("Dr. Lukas Schmidt");
    for (const h of [ha, hb]) expect(h).toContain("Demonstration — changes are not saved");
    expect(ha).toContain('href="/as/clinic/catalogue/'); // links carry the persona
  });

  // issue 40: `/` sent a visitor to the chooser; now the public landing page, answered from the fixtures
  it("opens on the public landing page with the personas to pick, the register and the information", async () => {
    const res = await fetch(`${server.url}/`, { redirect: "manual" });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-testid="landing"');
    expect(html).toContain('href="/as/researcher/"');
    expect(html).toContain('href="/register"');
    expect(html).toContain('href="/information"');
    expect(html).not.toContain('data-testid="persona-chooser"');
    for (const path of ["/register", "/information"]) {
      const page = await fetch(`${server.url}${path}`);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(await page.text()).not.toContain('data-testid="persona-chooser"');
    }
  });

  it("offers the persona chooser instead of sign-in", async () => {
    const chooser = await (await fetch(`${server.url}/auth/signin?returnTo=%2Fcatalogue`)).text();
    expect(chooser).toContain('data-testid="persona-chooser"');
    expect(chooser).toContain('href="/as/researcher/catalogue"');
    const login = await fetch(`${server.url}/auth/login?login_hint=regulator&returnTo=%2Fregister`, {
      redirect: "manual",
    });
    expect(login.headers.get("location")).toBe("/as/regulator/register");
  });

  it("keeps a loader's redirect inside the persona's app", async () => {
    const res = await fetch(`${server.url}/as/patient1/patients`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/as/patient1/my-record");
  });

  // security review 30 Nov: each answered 500 "Something went wrong"
  it("answers a page for an id the fixtures do not hold with its 404, in plain words, never a 500", async () => {
    for (const path of [
      "/as/lmc/patients/patient-000001",
      "/as/clinic/patients/zzz",
      "/as/clinic/catalogue/nope",
      "/as/clinic/patients/zzz.data?_routes=routes%2Fpatients.%24id",
    ]) {
      const res = await fetch(`${server.url}${path}`);
      const text = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(text).toContain(OFFLINE_DEMO_LACKS);
      expect(text).not.toMatch(/Something went wrong|Static mode has no fixture/);
    }
    // the developer's account of what is missing stays in the misses (the walk's check above)
    expect(
      (staticStateOf(server.services)?.misses ?? []).filter((m) => m.call.startsWith('catalogue.get("nope"')),
    ).toHaveLength(1);
  });

  it("refuses a write with the demonstration notice, shown in the view", async () => {
    const res = await fetch(`${server.url}/as/clinic/catalogue/new`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: new URLSearchParams({ id: "demo-dataset", title: "Demo" }).toString(),
    });
    // the replay's refusal is a 403, and a form answers a refusal it shows in place with its status (0117)
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(DEMO_WRITE_MESSAGE);
  });

  // issue 40: a cohort the presenter counts, or an example question clicked, answered a 500 page or
  // "Not in the demonstration data: nlq.ask({...})"
  describe("what a presenter can choose on a form", () => {
    const developerText =
      /Not in the demonstration data|Static mode has no fixture|\bnlq\.ask\(|federated\.summary\(/;
    const options = async () =>
      (await server.services.federated.options()) as {
        conditions: { code: string }[];
        drugs: { code: string }[];
        measurements: { code: string }[];
        ageBands: string[];
      };
    /** the query the cohort builder's form sends (every field, empty ones too, and the default k) */
    const formQuery = (fields: Record<string, string>) =>
      new URLSearchParams({
        condition: "",
        drug: "",
        measurement: "",
        ageBand: "",
        gender: "",
        k: "5",
        run: "1",
        ...fields,
      }).toString();

    it("counts every cohort of one criterion, and all persons, from the fixtures", async () => {
      const o = await options();
      const chosen: Record<string, string>[] = [
        {},
        ...o.conditions.map((c) => ({ condition: c.code })),
        ...o.drugs.map((d) => ({ drug: d.code })),
        ...o.measurements.map((m) => ({ measurement: m.code })),
        ...o.ageBands.map((b) => ({ ageBand: b })),
        { gender: "female" },
        { gender: "male" },
      ];
      const failed: string[] = [];
      for (const persona of ["researcher", "regulator"]) {
        for (const fields of chosen) {
          const res = await fetch(`${server.url}/as/${persona}/cohorts?${formQuery(fields)}`);
          const html = await res.text();
          if (res.status !== 200 || !html.includes('data-testid="cohort-total"') || developerText.test(html))
            failed.push(`${persona} ${JSON.stringify(fields)}: ${res.status}`);
        }
      }
      expect(failed).toEqual([]);
    }, 120_000);

    it("says plainly that a cohort of several criteria is not in the offline demo", async () => {
      const o = await options();
      const res = await fetch(
        `${server.url}/as/researcher/cohorts?${formQuery({ condition: o.conditions[0].code, gender: "female" })}`,
      );
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("The offline demo does not include this cohort");
      expect(html).not.toMatch(developerText);
    });

    it("answers every example question of every template, as its chip asks it", async () => {
      const { templates } = server.services.nlq.list();
      const failed: string[] = [];
      for (const persona of ["researcher", "regulator", "clinic"]) {
        for (const t of templates) {
          for (const q of t.examples) {
            const res = await fetch(`${server.url}/as/${persona}/ask?q=${encodeURIComponent(q)}`);
            const html = await res.text();
            if (res.status !== 200 || !html.includes('data-testid="answer"') || developerText.test(html))
              failed.push(`${persona} ${q}: ${res.status}`);
          }
        }
        // typed into the form as it stands (the template select sends "auto")
        const typed = await fetch(
          `${server.url}/as/${persona}/ask?${new URLSearchParams({ q: templates[0].examples[0], template: "auto" })}`,
        );
        expect(await typed.text()).toContain('data-testid="answer"');
      }
      expect(failed).toEqual([]);
    }, 120_000);

    it("says plainly that another question is not in the offline demo", async () => {
      const res = await fetch(
        `${server.url}/as/researcher/ask?q=${encodeURIComponent("How many patients with gout live on the moon?")}`,
      );
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("The offline demo does not include this question");
      expect(html).not.toMatch(developerText);
    });

    it("shows no developer message on any walked view", () => {
      expect(pages.filter((p) => developerText.test(p.body)).map((p) => `/as/${p.persona}${p.path}`)).toEqual(
        [],
      );
    });
  });
});
