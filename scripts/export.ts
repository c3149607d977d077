/**
 * `npm run export`: writes the static site of static mode, for any plain static file host.
 *
 * Every view for every persona is rendered by the real Remix build against static mode's
 * services (fixtures/static) through the same walk the fixtures were recorded with, and saved:
 *
 *   index.html, auth/signin/index.html      the persona chooser
 *   as/<persona>/<path>/index.html          each view's HTML (redirects become a refresh page)
 *   as/<persona>/<path>.data                its loader data, for client-side navigation
 *   as/<persona>/<path>/__q/<hash>.data     loader data of a walked URL with a query string
 *   as/<persona>/__manifest.json            the route manifest (lazy route discovery)
 *   build/, favicon.ico, fixtures/static/   assets and the fixtures
 *
 * Navigation stays client-side: a small script in each page (EXPORT_SHIM) maps the requests
 * Remix makes (`<path>.data?<query>`, `__manifest?p=...`) onto those files, falling back to the
 * page's unfiltered data when a query was never walked. Forms that would change something are
 * refused in the page (root.tsx), as static mode's server refuses them.
 *
 * Options: --out <dir> (default dist/static-site): a new or empty folder, or an earlier export's
 * (holding EXPORT_MARKER); any other folder is refused, never deleted.
 */
import { cspFor } from "../server/http/security-headers";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { loadConfig } from "../server/config";
import { createStaticServices } from "../server/static-mode/replay";
import { createPersonaHandler, type ViewContext } from "../server/static-mode/http";
import { personaBasename } from "../server/static-mode/personas";
import { STATIC_PERSONAS, walkViews, WALK_ORIGIN } from "./static-mode/views";

export const EXPORT_HEADER = "x-hub-export";

/** FNV-1a (32 bit) of a query string: the same function runs in EXPORT_SHIM */
export function queryHash(query: string): string {
  let x = 0x811c9dc5;
  for (let i = 0; i < query.length; i++) {
    x ^= query.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x.toString(16).padStart(8, "0");
}

/** the query as the shim names it: without `_routes`, keys sorted */
export function normalisedQuery(search: string): string {
  const q = new URLSearchParams(search);
  q.delete("_routes");
  q.sort();
  return q.toString();
}

export const EXPORT_SHIM = `(function () {
  var f = window.fetch;
  function h(s) { var x = 0x811c9dc5; for (var i = 0; i < s.length; i++) { x ^= s.charCodeAt(i); x = Math.imul(x, 0x01000193) >>> 0; } return ("0000000" + x.toString(16)).slice(-8); }
  window.fetch = function (input, init) {
    var u, m = (init && init.method) || (input && input.method) || "GET";
    try { u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url, location.href); } catch (e) { return f.apply(window, arguments); }
    if (u.origin !== location.origin || String(m).toUpperCase() !== "GET") return f.apply(window, arguments);
    if (/\\/__manifest$/.test(u.pathname)) return f.call(window, u.pathname + ".json", init);
    if (!/\\.data$/.test(u.pathname)) return f.apply(window, arguments);
    var q = new URLSearchParams(u.search); q.delete("_routes"); q.sort(); var s = q.toString();
    if (!s) return f.call(window, u.pathname, init);
    return f.call(window, u.pathname.replace(/\\.data$/, "") + "/__q/" + h(s) + ".data", init).then(function (r) {
      return r.ok ? r : f.call(window, u.pathname, init);
    });
  };
})();`;

/** `/as/clinic` + `/catalogue/x` → `as/clinic/catalogue/x.data` (Remix's single-fetch URL of the page) */
export function dataFile(basename: string, pathname: string): string {
  const p = pathname === "/" ? "" : pathname.replace(/\/$/, "");
  return `${basename}${p}.data`;
}

const decodeSegments = (p: string) =>
  p
    .split("/")
    .map((s) => decodeURIComponent(s))
    .join("/");

/**
 * Where a site path (segments percent-encoded, as walked) is written under `out`: its segments decoded,
 * and refused when the file would land outside `out` (an id holding `..%2F` or `../`).
 */
export function exportFile(out: string, rel: string): string {
  const root = path.resolve(out);
  const file = path.join(root, decodeSegments(rel));
  if (!file.startsWith(root + path.sep)) throw new Error(`export: ${rel} would be written outside ${root}`);
  return file;
}

/** the shim runs first and removes its own element, so the document React hydrates is the one it rendered */
function inject(html: string): string {
  return html.replace("<head>", `<head><script>${EXPORT_SHIM}document.currentScript.remove();</script>`);
}

function refreshPage(location: string): string {
  const href = location.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${href}"><title>Redirecting…</title></head><body><p><a href="${href}">Continue</a></p></body></html>\n`;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** the file an export leaves in --out: only a folder holding it (or an empty one) is cleared by the next export */
export const EXPORT_MARKER = ".hub-export";

/** a refusal of the command's arguments: printed as its message alone, without a stack */
class Refusal extends Error {}

/** empties --out for a new export, refusing a folder that holds anything but an earlier export */
export function clearOut(out: string): void {
  if (existsSync(out) && readdirSync(out).length && !existsSync(path.join(out, EXPORT_MARKER)))
    throw new Refusal(
      `--out ${out} is not empty and holds no earlier export (no ${EXPORT_MARKER} file): not deleting it; give an empty or new folder`,
    );
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, EXPORT_MARKER),
    "written by npm run export; the next export clears this folder\n",
  );
}

export interface ExportResult {
  out: string;
  pages: number;
  files: number;
}

export async function exportSite(
  out: string,
  opts: { buildPath?: string; log?: (line: string) => void } = {},
): Promise<ExportResult> {
  clearOut(out);
  const log = opts.log ?? (() => {});
  const buildPath = path.resolve(opts.buildPath ?? "build/remix/index.js");
  const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
  const services = createStaticServices(loadConfig({ APP_MODE: "static" }));
  const context: ViewContext = { services, contentSecurityPolicy: (hashes) => cspFor(hashes) };
  const personaHandler = createPersonaHandler(build, "production");
  const plainHandler = createRequestHandler(build, "production");
  const headers = { [EXPORT_HEADER]: "1" };
  const handle = async (url: string, accept = "text/html") => {
    const request = new Request(new URL(url, WALK_ORIGIN), {
      headers: { Accept: accept, ...headers },
      redirect: "manual",
    });
    return (await personaHandler(request, context)) ?? plainHandler(request, context as never);
  };

  let files = 0;
  const write = (rel: string, body: string | Uint8Array) => {
    const file = exportFile(out, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, body);
    files++;
  };

  const pages = await walkViews(build, services, {
    headers,
    onPersona: (persona, walked) => log(`  ${persona.padEnd(11)} ${walked.length} views`),
  });

  for (const page of pages) {
    const base = personaBasename(page.persona);
    const [pathname, search] = [
      page.path.split("?")[0],
      page.path.includes("?") ? page.path.slice(page.path.indexOf("?")) : "",
    ];
    const query = normalisedQuery(search);
    if (pathname.endsWith(".data")) {
      // a fetcher's request (graph inspector, expand, drawing): its data under the query's hash, or
      // the .data file itself for no query (the drawing of a bare /graph; the shim asks for that)
      const bytes = new Uint8Array(await (await handle(`${base}${page.path}`, "*/*")).arrayBuffer());
      write(
        query
          ? `${base}${pathname.replace(/\.data$/, "")}/__q/${queryHash(query)}.data`
          : `${base}${pathname}`,
        bytes,
      );
      continue;
    }
    const redirect = page.status >= 300 && page.status < 400 && !!page.location;
    if (!redirect && !page.contentType.includes("text/html")) {
      // a download a view links to (analytics.csv): the file itself (a static host cannot vary it by query)
      if (!query && page.status === 200) write(`${base}${pathname}`, page.body);
      continue;
    }
    if (!query)
      write(`${base}${pathname}/index.html`, redirect ? refreshPage(page.location!) : inject(page.body));
    const data = await handle(`${dataFile(base, pathname)}${search}`, "*/*");
    const bytes = new Uint8Array(await data.arrayBuffer());
    write(
      query
        ? `${dataFile(base, pathname).replace(/\.data$/, "")}/__q/${queryHash(query)}.data`
        : dataFile(base, pathname),
      bytes,
    );
  }

  // the fetchers' routes without a walked query: their "not in the demonstration data" answer
  for (const persona of STATIC_PERSONAS) {
    const base = personaBasename(persona);
    for (const [route, id] of [
      ["graph/node", "routes/graph.node"],
      ["graph/expand", "routes/graph.expand"],
    ] as const) {
      if (!pages.some((p) => p.persona === persona && p.path.startsWith(`/${route}.data`))) continue;
      const res = await handle(
        `${base}/${route}.data?id=${encodeURIComponent("(not in this export)")}&_routes=${encodeURIComponent(id)}`,
        "*/*",
      );
      write(`${base}/${route}.data`, new Uint8Array(await res.arrayBuffer()));
    }
  }

  // the route manifest per persona app (and for the chooser), for every walked path
  const manifestFor = async (base: string, paths: string[]) => {
    const merged: Record<string, unknown> = {};
    const unique = [...new Set(["/", ...paths])];
    for (let i = 0; i < unique.length; i += 40) {
      const q = new URLSearchParams();
      for (const p of unique.slice(i, i + 40)) q.append("p", p);
      q.set("version", build.assets.version);
      const res = await handle(`${base}/__manifest?${q.toString()}`, "application/json");
      if (!res.ok) throw new Error(`manifest of ${base || "/"}: ${res.status}`);
      Object.assign(merged, (await res.json()) as Record<string, unknown>);
    }
    return merged;
  };
  for (const persona of STATIC_PERSONAS) {
    const base = personaBasename(persona);
    // fetchers' routes too (the drawing, decision 0027): the client discovers them before it loads
    const paths = pages
      .filter((p) => p.persona === persona)
      .map((p) => `${base}${p.path.split("?")[0].replace(/\.data$/, "")}`);
    write(`${base}/__manifest.json`, JSON.stringify(await manifestFor(base, paths)));
  }
  write("__manifest.json", JSON.stringify(await manifestFor("", ["/auth/signin"])));

  // the persona chooser
  const chooser = await handle("/auth/signin?returnTo=%2F");
  write("auth/signin/index.html", inject(await chooser.text()));
  write("index.html", refreshPage("/auth/signin/"));

  // assets and fixtures
  const clientAssets = existsSync(path.join(path.dirname(path.dirname(buildPath)), "client"))
    ? path.join(path.dirname(path.dirname(buildPath)), "client")
    : path.resolve("public/build");
  cpSync(clientAssets, path.join(out, "build"), { recursive: true });
  for (const f of ["favicon.ico"])
    if (existsSync(path.join("public", f))) cpSync(path.join("public", f), path.join(out, f));
  cpSync("fixtures/static", path.join(out, "fixtures", "static"), { recursive: true });
  await services.close();
  return { out, pages: pages.length, files };
}

async function main() {
  const out = path.resolve(arg("out") ?? "dist/static-site");
  if (!existsSync("build/remix/index.js"))
    execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const t0 = Date.now();
  const r = await exportSite(out, { log: (l) => console.log(l) });
  console.log(
    `Exported ${r.pages} views (${r.files} files) to ${path.relative(process.cwd(), r.out)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(
    `Serve it with any static file server at the site root, e.g. \`npx serve ${path.relative(process.cwd(), r.out)}\` or \`python3 -m http.server -d ${path.relative(process.cwd(), r.out)}\`.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e instanceof Refusal ? e.message : e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  });
}
