import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });
/** a signed-in persona's home (not the landing page) */
const home = async (persona: string, path = "/") => {
  const d = await load(persona, path);
  if ("landing" in d && d.landing) throw new Error(`${persona} was shown the landing page`);
  return d as Exclude<typeof d, { landing: object }>;
};

/** the home page's loader: each persona's views come from the role lists derived from the route table */
describe("home", () => {
  // issue 40: `/` sent a visitor to sign in, whose "Home" link came back to `/`
  it("shows an anonymous visitor the public landing page: aggregates of public records, the personas", async () => {
    const d = await load(null, "/");
    if (!("landing" in d) || !d.landing) throw new Error("no landing page");
    const { landing } = d;
    const datasets = await h.context.services.catalogue.list();
    expect(landing.datasets.total).toBe(datasets.length);
    expect(landing.datasets.byPublisher.reduce((n, p) => n + p.datasets, 0)).toBe(datasets.length);
    expect(landing.participants.map((p) => p.name)).toEqual(
      expect.arrayContaining(["AlphaKlinik Berlin", "PharmaCo Research AG", "MedReg DE"]),
    );
    const register = await h.context.services.accessBody.register();
    expect(landing.register.permits).toBe(register.permits.length);
    // the embedded identity provider: its demonstration accounts are offered
    expect(landing.demo?.mode).toBe("embedded");
    expect(landing.demo?.personas.map((p) => p.username)).toContain("researcher");
    // aggregates only: no patient, no record, no pseudonym (the demonstration accounts aside)
    expect(JSON.stringify({ ...landing, demo: null })).not.toMatch(/patient-0|Patient\/|pseudonym|birthDate/);
  });

  it("offers no personas when a real identity provider signs people in", async () => {
    const d = await loader({
      request: await h.request(null, "/"),
      context: {
        ...h.context,
        services: new Proxy(h.context.services, {
          get: (t, p) => (p === "embeddedIdp" ? undefined : (t as never)[p]),
        }),
      },
      params: {},
    });
    expect("landing" in d && d.landing?.demo).toBeNull();
  });

  it("shows a researcher the graph and insight views and no patient views", async () => {
    const d = await home("researcher");
    expect(d.name).toBeTruthy();
    const to = d.views.map((v) => v.to);
    expect(to).toEqual(expect.arrayContaining(["/graph", "/analytics", "/negotiations", "/applications"]));
    expect(to).not.toContain("/patients");
    expect(to).not.toContain("/my-record");
    expect(to).not.toContain("/");
    expect(d.layers.length).toBeGreaterThan(0);
  });

  it("shows a patient their record and no graph", async () => {
    const d = await home("patient1");
    const to = d.views.map((v) => v.to);
    expect(to).toEqual(expect.arrayContaining(["/my-record", "/devices"]));
    expect(to).not.toContain("/graph");
    expect(to).not.toContain("/analytics");
  });
});
