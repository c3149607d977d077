import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../config";
import { ApiError, isApiError } from "../http/errors";
import type { Services } from "../services";
import { callKey, canonicalArgs } from "./keys";
import { locationForPersona, offlineDemoBuild } from "./http";
import { personaOfPath, personaSessions, staticSignIn, userForRequest } from "./personas";
import { stripPersona } from "../../scripts/static-mode/walk";
import { recordServices } from "../../scripts/static-mode/recorder";
import type { ServerBuild } from "@remix-run/node";
import { DEMO_WRITE_MESSAGE, OFFLINE_DEMO_LACKS, type Registry } from "./registry";
import {
  FixtureMissingError,
  StaticModeError,
  createStaticServices,
  isFixtureMissing,
  staticStateOf,
} from "./replay";
import { PERSONAS } from "../auth/personas";
import { personaSessionUser } from "../auth/user";
import { SESSION_COOKIE } from "../auth/sessions";
import * as walletStatus from "../../app/routes/auth.wallet.status/route";
import * as walletRequest from "../../app/routes/auth.wallet.request.$requestId/route";
import * as walletResponse from "../../app/routes/auth.wallet.response/route";

const clinic = personaSessionUser(PERSONAS.find((p) => p.username === "clinic")!);

describe("call keys", () => {
  it("are canonical: sorted keys, undefined dropped, users by username, URLs by path and query", () => {
    expect(callKey([{ b: 1, a: undefined, c: [2, { z: 1, y: 2 }] }])).toBe('[{"b":1,"c":[2,{"y":2,"z":1}]}]');
    expect(callKey(["x", undefined])).toBe(callKey(["x"]));
    expect(canonicalArgs([clinic])).toEqual([{ $persona: "clinic" }]);
    expect(canonicalArgs([new URL("http://a.example/as/clinic/report?from=1")])).toEqual([
      { $url: "/as/clinic/report?from=1" },
    ]);
  });
});

describe("personas in the path", () => {
  it("reads the persona from /as/<username>/... and .data URLs", () => {
    expect(personaOfPath("/as/clinic/catalogue")).toBe("clinic");
    expect(personaOfPath("/as/clinic")).toBe("clinic");
    expect(personaOfPath("/as/clinic.data")).toBe("clinic");
    expect(personaOfPath("/catalogue")).toBeNull();
    expect(stripPersona("/as/clinic/catalogue/x")).toBe("/catalogue/x");
    expect(stripPersona("/as/clinic.data")).toBe("/");
    expect(userForRequest(new Request("http://h/as/patient1/my-record"))).toMatchObject({
      username: "patient1",
      patientId: "patient-000001",
      roles: ["PATIENT"],
    });
    expect(userForRequest(new Request("http://h/as/nobody/"))).toBeNull();
    expect(userForRequest(new Request("http://h/"))).toBeNull();
  });

  it("keeps redirects inside the persona's app", () => {
    expect(locationForPersona("/my-record", "patient1")).toBe("/as/patient1/my-record");
    expect(locationForPersona("/as/patient1/x", "patient1")).toBe("/as/patient1/x");
    expect(locationForPersona("/auth/signin?returnTo=/", "patient1")).toBe("/auth/signin?returnTo=/");
    expect(locationForPersona("https://elsewhere.example/", "patient1")).toBe("https://elsewhere.example/");
  });

  it("sign-in is the persona switcher: login_hint and returnTo choose the persona's page", async () => {
    const oidc = staticSignIn();
    const r = await oidc.login(
      new Request("http://h/auth/login?login_hint=researcher&returnTo=%2Fcatalogue"),
    );
    expect(r.status).toBe(302);
    expect(r.headers.get("Location")).toBe("/as/researcher/catalogue");
    expect(
      (await oidc.login(new Request("http://h/auth/login?login_hint=evil&returnTo=//x.example"))).headers.get(
        "Location",
      ),
    ).toBe("/auth/signin?returnTo=%2F");
    expect((await personaSessions().read(new Request("http://h/as/clinic/")))?.user.username).toBe("clinic");
    // sign-out clears the live mode's session cookie, should one be left from a live server on this origin
    expect((await personaSessions().destroy(new Request("http://h/as/clinic/"))).setCookie).toBe(
      `${SESSION_COOKIE}=; Path=/; Max-Age=0`,
    );
  });
});

describe("record and replay", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "hub-static-unit-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const registry: Registry = {
    catalogue: {
      methods: {
        list: { kind: "read" },
        get: { kind: "read" },
        create: { kind: "write" },
        remove: { kind: "write" },
      },
    },
    patients: { methods: { profile: { kind: "read" } } },
  };

  function fakeLive(): Services {
    const catalogue = {
      calls: 0,
      async list() {
        this.calls++;
        return [{ id: "a", title: "A" }];
      },
      async get(id: string) {
        if (id === "nope") throw new ApiError(404, `Dataset ${id} not found`);
        return id === "a" ? await this.list().then((l) => l[0]) : null;
      },
      async create() {
        throw new Error("a write must not run while recording views");
      },
      async remove() {},
    };
    const patients = {
      profile: async (id: string, user: { username: string }) => ({ id, for: user.username }),
    };
    return { catalogue, patients, config: {} } as unknown as Services;
  }

  it("records outermost read calls with results and ApiErrors, writes them, and replays them", async () => {
    const live = fakeLive();
    const rec = recordServices(live, { registry });
    await rec.services.catalogue.get("a"); // calls this.list() inside: not recorded separately
    await expect(rec.services.catalogue.get("nope")).rejects.toThrow("Dataset nope not found");
    await rec.services.patients.profile("p1", clinic);
    expect(rec.book.toFiles().map((f) => `${f.service}.${f.method}:${f.calls.length}`)).toEqual([
      "catalogue.get:2",
      "patients.profile:1",
    ]);
    rec.book.writeTo(dir);
    expect(readFileSync(path.join(dir, "catalogue", "get.json"), "utf8").split("\n").length).toBeGreaterThan(
      3,
    );

    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    expect(await services.catalogue.get("a")).toEqual({ id: "a", title: "A" });
    const err = await services.catalogue.get("nope").catch((e: unknown) => e);
    expect(isApiError(err) && err.status).toBe(404);
    expect(await services.patients.profile("p1", clinic)).toEqual({ id: "p1", for: "clinic" });
    expect(staticStateOf(services)?.misses).toEqual([]);
  });

  it("answers an unrecorded call 404 in plain words, names the missing fixture for developers, and counts it", () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    let thrown: unknown;
    try {
      void services.catalogue.get("b");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FixtureMissingError);
    expect(isApiError(thrown) && [thrown.status, thrown.message]).toEqual([404, OFFLINE_DEMO_LACKS]);
    expect(isFixtureMissing(thrown)).toBe(true);
    const developer = (thrown as FixtureMissingError).developerMessage;
    expect(developer).toContain('catalogue.get("b")');
    expect(developer).toContain(path.join(dir, "catalogue", "get.json"));
    expect(developer).toContain("npm run fixtures");
    expect(staticStateOf(services)?.misses).toEqual([
      expect.objectContaining({ kind: "error", call: 'catalogue.get("b")' }),
    ]);
  });

  // 250,000 requests of unrecorded addresses (GET /internal/graph-bridge/assets/<n>) ran the server out of memory
  it("keeps a bounded account of the misses, however many addresses visitors make up", () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    for (let i = 0; i < 12_000; i++)
      expect(() => services.catalogue.get(`made-up-${i}`)).toThrow(FixtureMissingError);
    quiet.mockRestore();
    expect(staticStateOf(services)?.misses.length).toBe(10_000);
  });

  // security review 30 Nov: /as/clinic/catalogue/nope, /as/clinic/patients/zzz answered 500
  it("makes every page's read of what the fixtures lack the page's 404, in plain words, never a 500", async () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    const module = {
      // a loader that lets the service's error through, as the dataset page does
      loader: async ({ params }: { params: { id: string } }) => ({
        dataset: await services.catalogue.get(params.id),
      }),
      action: async () => services.patients.profile("p9", clinic),
      default: () => null,
    };
    const build = {
      routes: {
        "routes/x": { id: "routes/x", path: "x/:id", module },
        "routes/y": { id: "routes/y", module: {} },
      },
    } as unknown as ServerBuild;
    const routes = offlineDemoBuild(build).routes as unknown as Record<string, { module: typeof module }>;
    const answer = async (p: Promise<unknown>) => {
      try {
        return { value: await p };
      } catch (e) {
        return e instanceof Response ? { status: e.status, text: await e.text() } : { thrown: e };
      }
    };
    const x = routes["routes/x"].module;
    expect(await answer(x.loader({ params: { id: "a" } }))).toEqual({
      value: { dataset: { id: "a", title: "A" } },
    });
    expect(await answer(x.loader({ params: { id: "nope-at-all" } }))).toEqual({
      status: 404,
      text: OFFLINE_DEMO_LACKS,
    });
    expect(await answer(x.action())).toEqual({ status: 404, text: OFFLINE_DEMO_LACKS });
    // a recorded ApiError and other failures are the page's as before; a route without a loader stays so
    expect(await answer(x.loader({ params: { id: "nope" } }))).toMatchObject({ thrown: { status: 404 } });
    expect(x.default).toBe(module.default);
    expect(routes["routes/y"].module).toEqual({});
  });

  it("refuses writes with 403 and the demonstration notice", async () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    const err = await (async () => services.catalogue.create({ id: "x", title: "X" }, clinic))().catch(
      (e: unknown) => e,
    );
    expect(isApiError(err) && [err.status, err.message]).toEqual([403, DEMO_WRITE_MESSAGE]);
  });

  it("answers the wallet's endpoints with the demonstration notice as JSON (403), never a 500", async () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }));
    const args = (url: string, method = "GET", params = {}) =>
      ({
        request: new Request(url, {
          method,
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          ...(method === "POST" ? { body: "state=s&vp_token=t" } : {}),
        }),
        context: { services },
        params,
      }) as never;
    const answers = await Promise.all(
      [
        () => walletStatus.loader(args("http://h/auth/wallet/status?sid=x")),
        () => walletRequest.loader(args("http://h/auth/wallet/request/r", "GET", { requestId: "r" })),
        () => walletResponse.action(args("http://h/auth/wallet/response", "POST")),
      ].map(async (run) => {
        const r = await (async () => run())().catch((e: unknown) => e);
        return r instanceof Response ? [r.status, await r.json()] : String(r);
      }),
    );
    expect(answers).toEqual(Array(3).fill([403, { error: DEMO_WRITE_MESSAGE }]));
  });

  it("says which service static mode does not know", () => {
    const services = createStaticServices(loadConfig({ APP_MODE: "static" }), { fixturesDir: dir, registry });
    expect(() => services.dataspace).toThrow(StaticModeError);
    expect(() => services.dataspace).toThrow(/services\.dataspace .*registry\.ts/);
    expect(services.config.appMode).toBe("static");
  });
});
