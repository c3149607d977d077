import { cspFor } from "../../server/http/security-headers";
import { GRAPH_LIMIT_DEFAULT } from "../../server/graph/service";
import type { Services } from "../../server/services";
import { createPersonaHandler, type ViewContext } from "../../server/static-mode/http";
import { viewerOf, type Viewer } from "../../server/privacy/policy";
import { findPersona, PERSONAS } from "../../server/auth/personas";
import { personaSessionUser } from "../../server/auth/user";
import { walkPersona, WALK, type WalkedPage, type WalkRules } from "./walk";
import type { ServerBuild } from "@remix-run/node";
import { overviewOf } from "../../app/lib/graph/overview";
import { slimEdge, slimNode } from "../../app/lib/graph/slim.server";

/**
 * Every view for every persona, rendered in process by the real Remix build with the given
 * services (live ones being recorded, or static mode's replay), plus the graph explorer's
 * drill-downs (node inspector and expand) for a sample of the nodes it shows first.
 */

/** every persona, by username: the walk and the export visit each one's app */
export const STATIC_PERSONAS = PERSONAS.map((p) => p.username);

export const WALK_ORIGIN = "http://static.invalid";

/**
 * node ids for the drill-downs: the nodes of the explorer's first view (its overview,
 * app/lib/graph/overview.ts, so that every node a presenter sees first opens), then round-robin over
 * labels for variety, `count` in all
 */
export async function drillDownIds(services: Services, count: number, viewer: Viewer): Promise<string[]> {
  const g = await services.graphQueries.graph(
    { layer: "all", persona: null, limit: GRAPH_LIMIT_DEFAULT },
    { viewer },
  );
  const first = overviewOf({ nodes: g.nodes.map(slimNode), edges: g.edges.map(slimEdge) }).nodes.map(
    (n) => n.id,
  );
  const byLabel = new Map<string, string[]>();
  for (const n of g.nodes) byLabel.set(n.label, [...(byLabel.get(n.label) ?? []), n.id]);
  const out: string[] = first.slice(0, count);
  const lists = [...byLabel.values()];
  const longest = Math.max(0, ...lists.map((ids) => ids.length));
  for (let i = 0; i < longest && out.length < count; i++)
    for (const ids of lists)
      if (i < ids.length && out.length < count && !out.includes(ids[i])) out.push(ids[i]);
  return out;
}

/**
 * The explorer's drawing request for a /graph view's query string (`?layer=l5`, or ""), exactly as
 * its fetcher sends it (app/components/graph/use-drawing.ts: `/graph/drawing` + the page's query,
 * which single fetch turns into `.data` and a `_routes` parameter set last).
 */
export function drawingDataPath(search: string): string {
  const url = new URL(`/graph/drawing.data${search}`, WALK_ORIGIN);
  url.searchParams.set("_routes", "routes/graph.drawing");
  return url.pathname + url.search;
}

/**
 * What a presenter can choose on a form but no link leads to, so the walk's caps would miss it:
 * every cohort of one criterion (and all persons) on the cohort builder, as its form asks for them,
 * and every example question of every template on Ask. Static mode answers anything else in plain
 * words (server/static-mode/registry.ts: `readOrSay`).
 */
export async function presenterPaths(services: Services, walked: WalkedPage[]): Promise<string[]> {
  const shown = (path: string) => walked.some((p) => p.path === path && p.status === 200);
  const out: string[] = [];
  if (shown("/cohorts")) {
    const o = await services.federated.options();
    const one = (key: string, value: string) => `/cohorts?${new URLSearchParams({ [key]: value, run: "1" })}`;
    out.push("/cohorts?run=1");
    for (const c of o.conditions) out.push(one("condition", c.code));
    for (const d of o.drugs) out.push(one("drug", d.code));
    for (const m of o.measurements) out.push(one("measurement", m.code));
    for (const b of o.ageBands) out.push(one("ageBand", b));
    for (const g of o.genders) out.push(one("gender", g));
  }
  if (shown("/ask")) {
    for (const t of (await services.nlq.list()).templates)
      for (const q of t.examples) out.push(`/ask?${new URLSearchParams({ q })}`);
  }
  return out;
}

export interface WalkViewsOptions {
  personas?: string[];
  rules?: WalkRules;
  headers?: Record<string, string>;
  onPersona?: (persona: string, pages: WalkedPage[]) => void;
  /** walk a running server over HTTP instead of rendering in process (`build` is then not used) */
  server?: { origin: string };
}

export async function walkViews(
  build: ServerBuild | null,
  services: Services,
  opts: WalkViewsOptions = {},
): Promise<WalkedPage[]> {
  let handle: (request: Request) => Promise<Response>;
  if (opts.server) {
    handle = (request) => fetch(request, { redirect: "manual" });
  } else {
    if (!build) throw new Error("walkViews: a Remix build is needed to render in process");
    const handler = createPersonaHandler(build, "production");
    const context: ViewContext = { services, contentSecurityPolicy: (hashes) => cspFor(hashes) };
    handle = async (request) =>
      (await handler(request, context)) ?? new Response("not a persona path", { status: 404 });
  }
  const rules = opts.rules ?? WALK;
  const all: WalkedPage[] = [];
  for (const persona of opts.personas ?? STATIC_PERSONAS) {
    const pages = await walkPersona(handle, {
      origin: opts.server?.origin ?? WALK_ORIGIN,
      persona,
      rules,
      headers: opts.headers,
      extraPaths: async (walked) => {
        // the explorer's drawing, loaded after hydration for each walked /graph view (decision 0027)
        const drawings = walked
          .filter((p) => p.path.split("?")[0] === "/graph" && p.status === 200)
          .map((p) => drawingDataPath(p.path.slice("/graph".length)))
          .concat(await presenterPaths(services, walked));
        if (!walked.some((p) => p.path === "/graph" && p.status === 200)) return drawings;
        // the ids as this persona's explorer shows them (pseudonymised where it may not see identities)
        const known = findPersona(persona);
        const ids = await drillDownIds(
          services,
          rules.drillDownNodes,
          viewerOf(known ? personaSessionUser(known) : null),
        );
        // as the explorer's fetchers ask for them (single fetch: <path>.data?...&_routes=<route id>)
        return drawings.concat(
          ids.flatMap((id) => [
            `/graph/node.data?id=${encodeURIComponent(id)}&_routes=routes%2Fgraph.node`,
            `/graph/expand.data?id=${encodeURIComponent(id)}&depth=1&_routes=routes%2Fgraph.expand`,
          ]),
        );
      },
    });
    opts.onPersona?.(persona, pages);
    all.push(...pages);
  }
  return all;
}
