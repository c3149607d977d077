// Build-time transform of four Remix/React Router server files and turbo-stream's encoder
// (docs/decisions/0026-persona-pages-route-memo-queue-cache-no-express.md, 0031 for server-runtime's data.js,
// 0033 for turbo-stream's flatten.js).
// The route tree is fixed per build, but on every document request react-router flattens and ranks it
// in each matchRoutes call (four per page), compiles each route pattern's RegExp again, and RemixServer
// rebuilds the React route tree and its data routes. The patched copies memoise those by the identity
// (or, for the per-request partial manifest, the route ids) of inputs that do not change per build.
//
// writeRouteMemo(outDir) writes the patched sources under <outDir>/route-memo/ and a module
// <outDir>/route-memo.js that, imported before anything loads Remix, compiles each patched source under
// its original file name into Node's require cache: one copy of each module in the process, resolving
// its own dependencies from where the original sits. Each replacement must match exactly once, or the
// build fails; at start-up a package whose version differs from the one patched is left unpatched.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** [package, file inside it, [[exact original text, replacement], ...]], each after those it requires */
const PATCHES = [
  [
    "turbo-stream",
    "dist/flatten.js",
    [
      [
        "function flatten(input) {\n",
        // Remix encodes every page's loader data with turbo-stream (the single-fetch hand-off). A value
        // seen before comes back from flatten as a one-element array, and each key and array element is
        // turned into text by a template literal: Array.prototype.join for every repeated key. Taking
        // the index as a number, and the object's parts by one loop instead of map and join, makes the
        // same text in less than half the time (decision 0033)
        'function hubRef(encoder, input) {\n    const r = flatten.call(encoder, input);\n    return typeof r === "number" ? r : r[0];\n}\nfunction hubPartsForObj(encoder, obj) {\n    const keys = Object.keys(obj);\n    let out = "";\n    for (let i = 0; i < keys.length; i++)\n        out += (i === 0 ? \'"_\' : \',"_\') + hubRef(encoder, keys[i]) + \'":\' + hubRef(encoder, obj[keys[i]]);\n    return out;\n}\nfunction flatten(input) {\n',
      ],
      [
        '        const partsForObj = (obj) => Object.keys(obj)\n            .map((k) => `"_${flatten.call(this, k)}":${flatten.call(this, obj[k])}`)\n            .join(",");\n',
        "        const partsForObj = (obj) => hubPartsForObj(this, obj);\n",
      ],
      [
        "(i in input ? flatten.call(this, input[i]) : utils_js_1.HOLE);",
        "(i in input ? hubRef(this, input[i]) : utils_js_1.HOLE);",
      ],
    ],
  ],
  [
    "@remix-run/router",
    "dist/router.cjs.js",
    [
      [
        "  let branches = flattenRoutes(routes);\n  rankRouteBranches(branches);\n",
        // a route array's ranked branches, once per array (the server's route arrays never change)
        "  let branches = hubBranches.get(routes);\n  if (branches === undefined) {\n    branches = flattenRoutes(routes);\n    rankRouteBranches(branches);\n    hubBranches.set(routes, branches);\n  }\n",
      ],
      [
        "  let matches = null;\n  let decoded = decodePath(pathname);\n",
        // the answer for a path, once per ranked branch list (bounded; each caller gets its own copy)
        '  let matches = null;\n  let decoded = decodePath(pathname);\n  let byPath = hubMatches.get(branches);\n  if (byPath === undefined) hubMatches.set(branches, byPath = new Map());\n  let pathKey = (allowPartial ? "1" : "0") + decoded;\n  let known = byPath.get(pathKey);\n  if (known !== undefined) return hubCopyMatches(known);\n',
      ],
      [
        "    matches = matchRouteBranch(branches[i], decoded, allowPartial);\n  }\n  return matches;\n}\n",
        "    matches = matchRouteBranch(branches[i], decoded, allowPartial);\n  }\n  if (byPath.size >= 1000) byPath.delete(byPath.keys().next().value);\n  byPath.set(pathKey, hubCopyMatches(matches));\n  return matches;\n}\n",
      ],
      [
        "function matchRoutesImpl(routes, locationArg, basename, allowPartial) {\n",
        "const hubBranches = new WeakMap();\nconst hubMatches = new WeakMap();\n/** matches share one params object, as matchRouteBranch makes them */\nfunction hubCopyMatches(matches) {\n  if (matches === null) return null;\n  let params = { ...matches[0].params };\n  return matches.map((m) => ({ params, pathname: m.pathname, pathnameBase: m.pathnameBase, route: m.route }));\n}\nfunction matchRoutesImpl(routes, locationArg, basename, allowPartial) {\n",
      ],
      [
        "function compilePath(path, caseSensitive, end) {\n",
        // the RegExp of a route pattern, once per (path, caseSensitive, end); the set of patterns is the
        // route tree's, bounded all the same
        'const hubCompiled = new Map();\nfunction compilePath(path, caseSensitive, end) {\n  const key = path + "\\u0000" + caseSensitive + "\\u0000" + end;\n  let hit = hubCompiled.get(key);\n  if (hit === undefined) {\n    hit = compilePathOnce(path, caseSensitive, end);\n    if (hubCompiled.size < 2000) hubCompiled.set(key, hit);\n  }\n  return hit;\n}\nfunction compilePathOnce(path, caseSensitive, end) {\n',
      ],
    ],
  ],
  [
    "react-router-dom",
    "server.js",
    [
      [
        "function createStaticRouter(routes, context, opts = {}) {\n  let manifest = {};\n  let dataRoutes = router.UNSAFE_convertRoutesToDataRoutes(routes, reactRouter.UNSAFE_mapRouteProperties, undefined, manifest);\n",
        // data routes once per route array (RemixServer's arrays are memoised above)
        "const hubDataRoutes = new WeakMap();\nfunction createStaticRouter(routes, context, opts = {}) {\n  let memo = hubDataRoutes.get(routes);\n  if (memo === undefined) {\n    let manifest = {};\n    memo = { manifest, dataRoutes: router.UNSAFE_convertRoutesToDataRoutes(routes, reactRouter.UNSAFE_mapRouteProperties, undefined, manifest) };\n    hubDataRoutes.set(routes, memo);\n  }\n  let { manifest, dataRoutes } = memo;\n",
      ],
    ],
  ],
  [
    "@remix-run/server-runtime",
    "dist/data.js",
    [
      [
        "function stripIndexParam(request) {\n  let url = new URL(request.url);\n",
        // a GET without an `index` parameter is handed to the loader as it is: each Request built here
        // copies the headers and ties a new AbortSignal to the request's (undici keeps every one in a
        // FinalizationRegistry until a full collection); two per loader, four per page
        'function stripIndexParam(request) {\n  let url = new URL(request.url);\n  if ((request.method === "GET" || request.method === "HEAD") && !url.searchParams.has("index")) return request;\n',
      ],
      [
        "function stripRoutesParam(request) {\n  let url = new URL(request.url);\n",
        'function stripRoutesParam(request) {\n  let url = new URL(request.url);\n  if ((request.method === "GET" || request.method === "HEAD") && !url.searchParams.has("_routes")) return request;\n',
      ],
    ],
  ],
  [
    "@remix-run/react",
    "dist/server.js",
    [
      [
        "  let routes$1 = routes.createServerRoutes(manifest.routes, routeModules, context.future, context.isSpaMode);\n",
        // the partial manifest is a new object per request, its routes the build's: key by route ids
        "  let routes$1 = hubServerRoutes(manifest.routes, routeModules, context.future, context.isSpaMode);\n",
      ],
      [
        "function RemixServer({\n",
        'const hubRouteCache = new Map();\n/** routeModules is a new object per request, its modules the build\'s: an entry holds while they are the same */\nfunction hubServerRoutes(manifestRoutes, routeModules, future, isSpaMode) {\n  let ids = Object.keys(manifestRoutes);\n  let key = (isSpaMode ? "spa:" : "") + ids.join(",");\n  let hit = hubRouteCache.get(key);\n  if (hit === undefined || hit.future !== future || ids.some((id, i) => hit.modules[i] !== routeModules[id] || hit.manifest[i] !== manifestRoutes[id])) {\n    hit = { future, modules: ids.map((id) => routeModules[id]), manifest: ids.map((id) => manifestRoutes[id]), routes: routes.createServerRoutes(manifestRoutes, routeModules, future, isSpaMode) };\n    if (hubRouteCache.size >= 2000) hubRouteCache.delete(hubRouteCache.keys().next().value);\n    hubRouteCache.set(key, hit);\n  }\n  return hit.routes;\n}\nfunction RemixServer({\n',
      ],
    ],
  ],
];

function patched(source, replacements, where) {
  let out = source;
  for (const [from, to] of replacements) {
    const at = out.indexOf(from);
    if (at < 0 || out.indexOf(from, at + 1) >= 0)
      throw new Error(
        `route-memo: the text to replace in ${where} is not there exactly once: ${from.slice(0, 60)}…`,
      );
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return out;
}

const PRIMER = `// Generated by scripts/route-memo/route-memo.mjs: loads the patched Remix/React Router server files into
// Node's require cache under their original names, before anything requires them.
import { readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const patches = JSON.parse(readFileSync(path.join(here, "route-memo", "patches.json"), "utf8"));
// what the patched files load (React, React Router) picks its build from NODE_ENV once, when first
// loaded: production, as server/http/server-build.ts loads the Remix build, then restored
const nodeEnv = process.env.NODE_ENV;
process.env.NODE_ENV = "production";
try {
  prime();
} finally {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
}
function prime() {
for (const p of patches) {
  let filename;
  try {
    const pkgJson = require.resolve(p.pkg + "/package.json");
    if (JSON.parse(readFileSync(pkgJson, "utf8")).version !== p.version) {
      console.warn("route-memo: " + p.pkg + " is not the version patched at build time (" + p.version + "); left unpatched");
      continue;
    }
    filename = path.join(path.dirname(pkgJson), p.file);
  } catch {
    continue;
  }
  if (require.cache[filename]) {
    console.warn("route-memo: " + p.pkg + " was loaded before it could be patched; left unpatched");
    continue;
  }
  const m = new Module(filename, null);
  m.filename = filename;
  m.paths = Module._nodeModulePaths(path.dirname(filename));
  require.cache[filename] = m;
  try {
    m._compile(readFileSync(path.join(here, "route-memo", p.out), "utf8"), filename);
    m.loaded = true;
  } catch (e) {
    delete require.cache[filename];
    throw e;
  }
}
}
`;

/** writes <outDir>/route-memo.js and <outDir>/route-memo/*; returns the primer's path */
export function writeRouteMemo(outDir) {
  const dir = path.join(outDir, "route-memo");
  mkdirSync(dir, { recursive: true });
  const index = [];
  for (const [pkg, file, replacements] of PATCHES) {
    const pkgJson = require.resolve(`${pkg}/package.json`);
    const version = JSON.parse(readFileSync(pkgJson, "utf8")).version;
    const source = readFileSync(path.join(path.dirname(pkgJson), file), "utf8");
    const out = `${pkg.replace(/[@/]/g, "_")}_${path.basename(file)}`;
    writeFileSync(path.join(dir, out), patched(source, replacements, `${pkg}/${file}`));
    index.push({ pkg, version, file, out });
  }
  writeFileSync(path.join(dir, "patches.json"), JSON.stringify(index, null, 2) + "\n");
  const primer = path.join(outDir, "route-memo.js");
  writeFileSync(primer, PRIMER);
  return primer;
}
