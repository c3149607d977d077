import { personaBasename, personaOfPath } from "../../server/static-mode/personas";

/**
 * Walks the views of one persona the way a visitor would: from the start paths, following every
 * same-site link each page renders (breadth first, with caps). Used to record the fixtures, by the
 * static-mode view test, and by the export. `handle` answers a Request (in process or over HTTP).
 */

/**
 * How the views are walked (recording, the static-mode view test and the export): from `start`,
 * following every link a page renders, for every persona. Caps keep the fixtures small: per path
 * shape (`/patients/*`) and per path with different query strings.
 */
export const WALK = {
  start: ["/", "/catalogue", "/graph", "/graph/validate", "/patients", "/my-record", "/catalogue/new"],
  /** never followed */
  exclude: [/^\/auth\//, /^\/idp/, /^\/api\//, /^\/build\//, /^\/fixtures\//, /^\/favicon/, /^\/as\//],
  maxPagesPerPersona: 160,
  /** distinct paths per shape (first segment kept, the others as *) */
  maxPerShape: 12,
  shapeCaps: { "/catalogue/*": 80 } as Record<string, number>,
  /** distinct query strings per path (beyond the bare path) */
  maxQueriesPerPath: 3,
  /** query parameters that choose a tab or variant of a view: never capped (see isVariant below) */
  variantParams: ["persona", "tab", "layer", "show", "template", "kind", "state"] as string[],
  /** node inspector and expand fetchers: recorded for this many nodes of the explorer's first view */
  drillDownNodes: 40,
};

/** the path inside the persona's app: `/as/clinic/catalogue` → `/catalogue` */
export function stripPersona(pathname: string): string {
  const persona = personaOfPath(pathname);
  if (!persona) return pathname;
  const rest = pathname.slice(personaBasename(persona).length);
  return rest.startsWith("/") ? rest : `/${rest.replace(/^\.data$/, "")}`;
}

export interface WalkedPage {
  persona: string;
  /** the path inside the persona's app, with its query: `/catalogue?q=x` */
  path: string;
  status: number;
  location: string | null;
  contentType: string;
  body: string;
}

export type WalkRules = typeof WALK;

export interface WalkOptions {
  origin: string;
  persona: string;
  rules?: WalkRules;
  /** more paths to visit after the walk (resource routes no link leads to), not capped */
  extraPaths?: (pages: WalkedPage[]) => string[] | Promise<string[]>;
  headers?: Record<string, string>;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  quot: '"',
  apos: "'",
  lt: "<",
  gt: ">",
  "#39": "'",
  "#x27": "'",
};

export function decodeHtmlAttr(v: string): string {
  return v.replace(/&(amp|quot|apos|lt|gt|#39|#x27);/g, (_m, e: string) => ENTITIES[e] ?? _m);
}

/** a path's pathname and its query (what follows the first `?`, null without one) */
function splitPath(path: string): [string, string | null] {
  const i = path.indexOf("?");
  return i < 0 ? [path, null] : [path.slice(0, i), path.slice(i + 1)];
}

/** the same-site links of a page, as paths inside the persona's app */
export function linksOf(html: string, persona: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<a\b[^>]*?\shref="([^"]*)"[^>]*>/g)) {
    if (m[0].includes("data-persona-switch")) continue; // the persona switcher: other personas' apps
    let href = decodeHtmlAttr(m[1]).split("#")[0];
    if (!href.startsWith("/") || href.startsWith("//")) continue;
    // the persona is read from the path alone: `/as/clinic?persona=X` is the persona's home with a query
    const [pathname, query] = splitPath(href);
    const named = personaOfPath(pathname);
    if (named && named !== persona) continue;
    if (named) href = stripPersona(pathname) + (query === null ? "" : `?${query}`);
    out.push(href);
  }
  return out;
}

/**
 * A query that only chooses a tab or variant of a view (`?persona=DATA_USER`, `?tab=access`): always
 * followed, whatever the per-path cap, so every variant a view links to has its fixtures.
 */
export function isVariant(query: string, rules: Pick<WalkRules, "variantParams">): boolean {
  const keys = [...new URLSearchParams(query).keys()];
  return keys.length > 0 && keys.every((k) => rules.variantParams.includes(k));
}

export function shapeOf(pathname: string): string {
  const segs = pathname.split("/").filter(Boolean);
  return segs.length <= 1
    ? `/${segs.join("/")}`
    : `/${segs[0]}/${segs
        .slice(1)
        .map(() => "*")
        .join("/")}`;
}

export function personaUrl(origin: string, persona: string, path: string): string {
  return `${origin}${personaBasename(persona)}${path}`;
}

export async function walkPersona(
  handle: (request: Request) => Promise<Response>,
  opts: WalkOptions,
): Promise<WalkedPage[]> {
  const rules = opts.rules ?? WALK;
  const seen = new Set<string>();
  const shapes = new Map<string, Set<string>>();
  const queries = new Map<string, number>();
  const queue: string[] = [];

  const admit = (path: string) => {
    if (seen.has(path)) return;
    const [rawPath, query] = splitPath(path);
    const pathname = rawPath || "/";
    if (rules.exclude.some((r) => r.test(pathname))) return;
    if (query && !isVariant(query, rules)) {
      const n = queries.get(pathname) ?? 0;
      if (n >= rules.maxQueriesPerPath) return;
      queries.set(pathname, n + 1);
    } else {
      const shape = shapeOf(pathname);
      const members = shapes.get(shape) ?? new Set<string>();
      if (!members.has(pathname) && members.size >= (rules.shapeCaps[shape] ?? rules.maxPerShape)) return;
      members.add(pathname);
      shapes.set(shape, members);
    }
    seen.add(path);
    queue.push(path);
  };
  for (const p of rules.start) admit(p);

  const pages: WalkedPage[] = [];
  const visit = async (path: string) => {
    const response = await handle(
      new Request(personaUrl(opts.origin, opts.persona, path), {
        headers: { Accept: "text/html", ...(opts.headers ?? {}) },
        redirect: "manual",
      }),
    );
    const body = await response.text();
    const location = response.headers.get("Location");
    const page: WalkedPage = {
      persona: opts.persona,
      path,
      status: response.status,
      location,
      contentType: response.headers.get("Content-Type") ?? "",
      body,
    };
    pages.push(page);
    if (location && personaOfPath(location) === opts.persona) {
      const u = new URL(location, opts.origin);
      admit(stripPersona(u.pathname) + u.search);
    }
    if (page.contentType.includes("text/html")) for (const link of linksOf(body, opts.persona)) admit(link);
  };
  while (queue.length && pages.length < rules.maxPagesPerPersona) await visit(queue.shift()!);
  for (const path of opts.extraPaths ? await opts.extraPaths(pages) : []) {
    if (seen.has(path)) continue;
    seen.add(path);
    await visit(path);
  }
  return pages;
}
