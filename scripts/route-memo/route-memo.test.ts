import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the build, without types
import { writeRouteMemo } from "./route-memo.mjs";

/**
 * The build's patched Remix/React Router files (route-memo.mjs): loaded by the primer in a process of
 * their own, they match every path as the unpatched router does, the first time and from the memo,
 * and the static router's data routes are made once per route array.
 */

interface RouteDef {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children?: RouteDef[];
}

// the shapes a Remix route tree has: a pathless root, layouts, index routes, params, optional
// segments, splats, dots in names, case-sensitive routes
const ROUTES: RouteDef[] = [
  {
    id: "root",
    path: "",
    children: [
      { id: "home", index: true },
      {
        id: "access-body",
        path: "access-body",
        children: [
          { id: "ab-index", index: true },
          { id: "ab-apps", path: "applications", children: [{ id: "ab-apps-index", index: true }] },
          { id: "ab-app", path: "applications/:id" },
          { id: "ab-report", path: "report" },
        ],
      },
      {
        id: "catalogue",
        path: "catalogue",
        children: [
          { id: "cat-index", index: true },
          { id: "cat-new", path: "new" },
          { id: "cat-id", path: ":id" },
        ],
      },
      {
        id: "graph",
        path: "graph",
        children: [
          { id: "graph-index", index: true },
          { id: "graph-node", path: "node" },
        ],
      },
      { id: "csv", path: "analytics.csv" },
      { id: "analytics", path: "analytics" },
      { id: "docs", path: ":lang?/docs/*" },
      { id: "Case", path: "Case/Exact", caseSensitive: true },
      // the same relative path, not case-sensitive
      { id: "x", path: "x", children: [{ id: "x-case", path: "Case/Exact" }] },
      { id: "pathless", children: [{ id: "tasks", path: "tasks" }] },
      { id: "splat", path: "*" },
    ],
  },
];

const SEGMENTS = [
  "access-body",
  "applications",
  "HDAB-2026-0001",
  "report",
  "catalogue",
  "new",
  "graph",
  "node",
  "analytics.csv",
  "analytics",
  "de",
  "docs",
  "a%20b",
  "Case",
  "case",
  "Exact",
  "tasks",
  "",
  "x",
];

const root = path.resolve(".builds"); // inside the worktree: the primer resolves node_modules from there
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(path.join(root, "route-memo-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** what the router matches for each path: route ids and params */
type Answer = [string, Record<string, string | undefined>][] | null;

const CHILD = `
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const [primer, input] = process.argv.slice(1);
await import(primer);
const require = createRequire(primer);
const router = require("@remix-run/router");
const staticRouter = require("react-router-dom/server");
const { routes, paths } = JSON.parse(readFileSync(input, "utf8"));
const answer = (m) => (m ? m.map((x) => [x.route.id, x.params]) : null);
const raw = paths.map((p) => router.matchRoutes(routes, p));
const first = JSON.parse(JSON.stringify(raw.map(answer)));
// a caller changing what it got does not change what the next caller gets
for (const m of raw) if (m) m[0].params.changed = "yes";
const again = paths.map((p) => answer(router.matchRoutes(routes, p)));
const context = { matches: [], location: { pathname: "/" }, loaderData: {}, actionData: null, errors: null, basename: "/" };
const a = staticRouter.createStaticRouter(routes, context);
const b = staticRouter.createStaticRouter(routes, context);
const production = ["react-router-dom.production.min.js", "react.production.min.js"].every((f) =>
  Object.keys(require.cache).some((k) => k.endsWith(f)),
);
// the request each loader is handed: the page's own for a GET with nothing to strip, a copy otherwise
const data = require("@remix-run/server-runtime/dist/data.js");
const handed = [];
const load = (request) =>
  data.callRouteLoader({ loadContext: {}, params: {}, routeId: "r", singleFetch: true, request,
    loader: (args) => { handed.push(args.request); return {}; } });
const plain = new Request("http://hub.test/catalogue?q=x");
const marked = new Request("http://hub.test/catalogue?index&_routes=routes%2Fcatalogue&q=x");
const post = new Request("http://hub.test/catalogue?q=x", { method: "POST", body: "a=1" });
for (const r of [plain, marked, post]) await load(r);
const loaderRequests = {
  plainIsTheSame: handed[0] === plain,
  markedIsACopy: handed[1] !== marked,
  markedUrl: handed[1].url,
  postIsACopy: handed[2] !== post,
  postBody: await handed[2].text(),
};
process.stdout.write(
  JSON.stringify({ first, again, sameDataRoutes: a.routes === b.routes, production, nodeEnv: process.env.NODE_ENV, loaderRequests }),
);
`;

interface ChildAnswer {
  first: Answer[];
  again: Answer[];
  sameDataRoutes: boolean;
  production: boolean;
  nodeEnv: string;
  loaderRequests: Record<string, boolean | string>;
}

function patchedAnswers(paths: string[]): ChildAnswer {
  const input = path.join(dir, `input-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(input, JSON.stringify({ routes: ROUTES, paths }));
  const out = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", CHILD, pathToFileURL(primer).href, input],
    { encoding: "utf8", env: { ...process.env, NODE_ENV: "test" } },
  );
  return JSON.parse(out) as ChildAnswer;
}

const primer: string = writeRouteMemo(dir);
const unpatched = createRequire(import.meta.url)("@remix-run/router") as {
  matchRoutes(routes: RouteDef[], path: string): { route: RouteDef; params: Record<string, string> }[] | null;
};
const expected = (p: string): Answer => {
  const m = unpatched.matchRoutes(structuredClone(ROUTES), p);
  return m ? m.map((x) => [x.route.id, { ...x.params }]) : null;
};

describe("the build's route memo", () => {
  it("matches every path as the unpatched router does, first time and from the memo", () => {
    const paths = fc.sample(
      fc
        .array(fc.constantFrom(...SEGMENTS), { maxLength: 4 })
        .chain((segs) => fc.constantFrom("/" + segs.join("/"), "/" + segs.join("/") + "/")),
      { numRuns: 400, seed: 26 },
    );
    paths.unshift("/x/case/exact");
    paths.push("/", "/access-body/applications/HDAB-2026-0001", "/Case/Exact", "/case/exact", "/de/docs/a/b");
    const got = patchedAnswers(paths);
    const want = paths.map(expected);
    expect(got.first).toEqual(want);
    expect(got.again).toEqual(want);
    // the case-sensitive route and the splat are told apart, as without the memo
    expect(got.first[paths.indexOf("/Case/Exact")]![1]![0]).toBe("Case");
    expect(got.first[paths.indexOf("/case/exact")]![1]![0]).toBe("splat");
    expect(got.first[paths.indexOf("/x/case/exact")]![2]![0]).toBe("x-case");
  });

  it("makes the static router's data routes once per route array", () => {
    expect(patchedAnswers(["/"]).sameDataRoutes).toBe(true);
  });

  it("hands a loader the page's own GET request when there is no index or _routes parameter to take off", () => {
    expect(patchedAnswers(["/"]).loaderRequests).toEqual({
      plainIsTheSame: true,
      markedIsACopy: true,
      markedUrl: "http://hub.test/catalogue?q=x",
      postIsACopy: true,
      postBody: "a=1",
    });
  });

  it("loads React and React Router's production builds, as the Remix build is loaded, and restores NODE_ENV", () => {
    const got = patchedAnswers(["/"]);
    expect(got.production).toBe(true);
    expect(got.nodeEnv).toBe("test");
  });
});

/** turbo-stream's flatten as the build patches it, compiled beside the original (not in the require cache) */
function patchedFlatten(): (this: Encoder, input: unknown) => unknown {
  const req = createRequire(import.meta.url);
  const original = req.resolve("turbo-stream/package.json").replace(/package\.json$/, "dist/flatten.js");
  const m = new Module(original, undefined) as Module & { _compile(src: string, file: string): void };
  m.filename = original;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    path.dirname(original),
  );
  m._compile(readFileSync(path.join(dir, "route-memo", "turbo-stream_flatten.js"), "utf8"), original);
  return (m.exports as { flatten: (this: Encoder, input: unknown) => unknown }).flatten;
}

interface Encoder {
  deferred: Record<number, unknown>;
  index: number;
  indices: Map<unknown, number>;
  stringified: string[];
  plugins?: ((v: unknown) => unknown)[];
  postPlugins?: ((v: unknown) => unknown)[];
}

/** the text turbo-stream's encode sends for `input` (its first line), with Remix's plugins' shapes */
function encodeWith(flatten: (this: Encoder, input: unknown) => unknown, input: unknown): string {
  const encoder: Encoder = {
    deferred: {},
    index: 0,
    indices: new Map(),
    stringified: [],
    plugins: [(v) => (v instanceof Error ? ["SanitizedError", v.name, v.message] : undefined)],
    postPlugins: [
      (v) =>
        v && typeof v === "object"
          ? ["SingleFetchClassInstance", Object.fromEntries(Object.entries(v))]
          : undefined,
      () => ["SingleFetchFallback"],
    ],
  };
  const id = flatten.call(encoder, input);
  return typeof id === "number" && id < 0 ? `${id}` : `[${encoder.stringified.join(",")}]`;
}

describe("the build's turbo-stream encoder", () => {
  it("writes every value as the unpatched encoder does: shared values, repeated keys, holes, special numbers and types", () => {
    const req = createRequire(import.meta.url);
    const original = (
      req(req.resolve("turbo-stream/package.json").replace(/package\.json$/, "dist/flatten.js")) as {
        flatten: (this: Encoder, input: unknown) => unknown;
      }
    ).flatten;
    const patched = patchedFlatten();
    expect(patched).not.toBe(original);
    const leaf = fc.oneof(
      fc.string(),
      fc.constantFrom("label", "to", "group", "Overview", "", 'é"\\', "0"),
      fc.integer(),
      fc.double(),
      fc.constantFrom(0, -0, NaN, Infinity, -Infinity, true, false, null, undefined),
      fc.date({ noInvalidDate: true }),
      fc.constant(new Error("boom")),
      fc.bigInt(),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("tree"), { maxLength: 5 }),
        // an array with a hole
        fc.array(tie("tree"), { minLength: 2, maxLength: 4 }).map((xs) => {
          const holed = [...xs];
          delete holed[1];
          return holed;
        }),
        fc.dictionary(fc.constantFrom("label", "to", "group", "key", "n", "_1", "a b"), tie("tree"), {
          maxKeys: 5,
        }),
        fc.array(tie("tree"), { maxLength: 3 }).map((xs) => new Set(xs)),
        fc.array(fc.tuple(tie("tree"), tie("tree")), { maxLength: 3 }).map((xs) => new Map(xs)),
        fc
          .dictionary(fc.string(), tie("tree"), { maxKeys: 3 })
          .map((o) => Object.assign(Object.create(null), o)),
      ),
    }));
    // the same objects met again (as the root loader's nav entries are, from two lists)
    const shared = fc.tuple(tree, tree).map(([a, b]) => ({ a, b, again: a, list: [a, b, a] }));
    fc.assert(
      fc.property(fc.oneof(tree, shared), (input) => {
        expect(encodeWith(patched, input)).toBe(encodeWith(original, input));
      }),
      { numRuns: 3000, seed: 33 },
    );
  });
});
