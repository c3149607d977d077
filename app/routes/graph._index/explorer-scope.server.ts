import { PERSONAS } from "../../../server/auth/personas";
import { GRAPH_LIMIT_MAX, personaLayers, type GraphReader } from "../../../server/graph/service";
import { isApiError } from "../../../server/http/errors";
import type { Services } from "../../../server/services";
import { LIMIT_DEFAULT } from "../../components/graph/types";
import { roleLabel } from "../../components/ui/labels";

/**
 * The explorer's query (`?layer=&persona=&limit=&focus=`) and the graph it asks for, shared by the
 * page (app/routes/graph._index/route.tsx: the frame, the counts) and the drawing's resource route
 * (app/routes/graph.drawing/route.ts: the graph itself), so both read the same query the same way.
 */
export function explorerQuery(url: URL) {
  const rawLimit = Number.parseInt(url.searchParams.get("limit") ?? "", 10);
  return {
    layer: url.searchParams.get("layer") || "all",
    persona: url.searchParams.get("persona") || "",
    limit: Number.isFinite(rawLimit) && rawLimit > 0 ? Math.min(rawLimit, GRAPH_LIMIT_MAX) : LIMIT_DEFAULT,
    focus: url.searchParams.get("focus") || null,
    // the first view (issue 40): no layer, no limit and no focus asked for, so the explorer opens on the
    // overview (app/lib/graph/overview.ts) of the scope's sample instead of the whole sample
    overview: !["layer", "limit", "focus"].some((k) => url.searchParams.get(k)),
  };
}

/**
 * The graph of the query's scope for `reader`; a scope the service refuses (4xx) falls back to all
 * layers with the refusal as `error`. The service hands out the same frozen answer while the graph is
 * unchanged, so asking twice (page, then drawing) costs no second query.
 */
export async function explorerScope(
  graphQueries: Services["graphQueries"],
  q: ReturnType<typeof explorerQuery>,
  reader: GraphReader,
) {
  try {
    const g = await graphQueries.graph(
      { layer: q.layer, persona: q.persona || null, limit: q.limit },
      reader,
    );
    return { g, error: null, layer: q.layer, persona: q.persona };
  } catch (e) {
    if (!isApiError(e) || e.status >= 500) throw e;
    const g = await graphQueries.graph({ layer: "all", persona: null, limit: q.limit }, reader);
    return { g, error: e.message, layer: "all", persona: "" };
  }
}

/**
 * The persona filter: one entry per demonstration persona, named by its role and organisation; the
 * two patients share one entry, as they share one scope. Server-only: made at module level, it would
 * take the personas and the graph service into the page's script (decision 0064).
 */
export const PERSONA_FILTER = PERSONAS.map((p) => {
  const patient = p.roles.includes("PATIENT");
  const value = patient ? "patient" : p.username;
  return {
    value,
    label: patient ? "Patient" : `${roleLabel(p.roles[0])} · ${p.organisation}`,
    layers: personaLayers(value) ?? [],
  };
}).filter((p, i, all) => all.findIndex((o) => o.value === p.value) === i);
