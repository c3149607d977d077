/**
 * GET /api/overview: each persona's home. For the persona (the caller's main role, or `?persona=`
 * among the caller's own roles; an operator may look at any), the graph layers it works with
 * with their node and link counts, and the signals it cares about: open tasks, pending approvals,
 * expiring permits, new datasets, and so on.
 *
 * Each card counts the list it links to with that list's own query, for the same caller (issue 40):
 * contracts and negotiations from the dataspace, datasets from the catalogue, applications, permits
 * and the work queue from the access body, patients and the patient's record from the graph
 * (list-signals.ts, access-body-signals.ts, graph-signals.ts). The access body is optional: when it
 * is missing or fails, the overview shows the other signals and says so.
 */
import { berlinDate } from "../access-body";
import { organisationOf, type SessionUser } from "../auth/user";
import type { Role } from "../auth/personas";
import { LAYER_NAMES, LAYERS, type Layer, type GraphStore } from "../graph";
import { callerKey, createKept, deepFrozen, EVERYONE, identityOf } from "../http/kept";
import { accessBodyFrom, accessBodySignals, bounded } from "./access-body-signals";
import { graphSignals } from "./graph-signals";
import { listSignals, sourcesFrom } from "./list-signals";
import { DAY, isoDay, type Overview } from "./model";
import { ORDER, PERSONAS, resolvePersona } from "./personas";

/** the personas whose overview shows the access body's signals */
const ACCESS_BODY_PERSONAS: readonly string[] = ["HDAB_AUTHORITY", "CONNECTOR_ADMIN", "DATA_USER"];

/** an overview built while the access body failed: answered once, never kept */
class NotKept {
  constructor(readonly overview: Overview) {}
}

export function createOverviewService(graph: GraphStore) {
  const now = () => new Date();
  const accessBodyTimeoutMs = 2000;
  // whole answers per version of the graph and the access body's records (server/http/kept)
  const keptOverviews = createKept<Overview>({ max: 500 });
  const keptAnswers = createKept<Overview>({ max: 500 });
  const countLayers = async () => {
    const perLayer = new Map<Layer, { nodes: number; links: number }>();
    for (const l of LAYERS) {
      const [nodes, sample] = await Promise.all([graph.countNodes([l]), graph.sampleGraph([l], 1, l)]);
      perLayer.set(l, { nodes, links: sample.meta.totalEdges });
    }
    return perLayer;
  };
  const keptLayerCounts = createKept<Awaited<ReturnType<typeof countLayers>>>({ max: 1 });
  const layerCounts = () => keptLayerCounts({ caller: EVERYONE, versions: [graph.version()] }, countLayers);

  async function build(
    user: SessionUser,
    personaParam: string | null,
    services?: unknown,
  ): Promise<Overview> {
    const persona = resolvePersona(user, personaParam);
    const def = PERSONAS[persona];
    const counts = await layerCounts();
    const layers = def.layers.map((l) => ({ layer: l, name: LAYER_NAMES[l], ...counts.get(l)! }));
    // links within the persona's layers
    const within = def.layers.length
      ? (await graph.sampleGraph(def.layers, 1, "persona")).meta.totalEdges
      : 0;
    const nodes = layers.reduce((s, l) => s + l.nodes, 0);
    const internal = layers.reduce((s, l) => s + l.links, 0);
    const signals = await graphSignals(graph, persona, user);
    const notes: string[] = [];
    let accessBody: Overview["accessBody"] = "not-applicable";
    if (ACCESS_BODY_PERSONAS.includes(persona)) {
      const port = accessBodyFrom(services);
      if (!port) {
        accessBody = "unavailable";
        notes.push(
          "The access-body module is not available: application and permit-register signals are not shown.",
        );
      } else {
        try {
          // a module that cannot tell its records' version is not ready: its signals are not shown
          if (port.readyVersion) await bounded(port.readyVersion(), accessBodyTimeoutMs);
          const fromRegister = await accessBodySignals(persona, user, port, {
            now,
            timeoutMs: accessBodyTimeoutMs,
          });
          signals.push(...fromRegister);
          accessBody = "available";
        } catch (e) {
          accessBody = "unavailable";
          notes.push(
            `The access-body module did not answer (${(e as Error).message}); its signals are not shown.`,
          );
        }
      }
    }
    const org = organisationOf(user);
    return {
      persona: { role: persona, label: def.label, focus: def.focus, graph: def.graph ?? null },
      personas: ORDER.filter((r) => user.roles.includes(r)).map((r) => ({
        role: r,
        label: PERSONAS[r].label,
      })),
      organisation: org?.displayName ?? user.organisation ?? null,
      layers,
      totals: {
        nodes: persona === "PATIENT" ? 0 : nodes,
        links: within,
        crossLayerLinks: Math.max(0, within - internal),
      },
      signals,
      accessBody,
      notes,
      graphVersion: graph.version(),
      generatedAt: new Date().toISOString(),
    };
  }

  /**
   * GET /api/overview and the home page: the graph's and the access body's part kept per version of
   * everything it reads (keptForUser), and the whole answer per that part and what the lists counted,
   * as built (`generatedAt` is the build's). An overview whose access body failed is never kept.
   */
  async function forUser(
    user: SessionUser,
    personaParam: string | null,
    services?: unknown,
  ): Promise<Overview> {
    const persona = resolvePersona(user, personaParam);
    const caller = callerKey("viewer", user);
    const [{ overview, kept }, fromLists] = await Promise.all([
      keptForUser(user, personaParam, services, persona, caller),
      listSignals(persona, user, sourcesFrom(services), now()),
    ]);
    const merge = (): Overview => ({
      ...overview,
      signals: [...fromLists.signals, ...overview.signals],
      notes: [...overview.notes, ...fromLists.notes],
    });
    if (!kept) return merge();
    // the whole answer kept per kept part and what the lists counted: encoded once at the edge
    return keptAnswers({ caller, versions: [identityOf(overview)], args: [fromLists] }, async () =>
      deepFrozen(merge()),
    );
  }

  /** the graph's and the access body's part of the overview, kept per version of both (`caller`: the user's viewer class) */
  async function keptForUser(
    user: SessionUser,
    personaParam: string | null,
    services: unknown,
    persona: Role,
    caller: string,
  ): Promise<{ overview: Overview; kept: boolean }> {
    const port = ACCESS_BODY_PERSONAS.includes(persona) ? accessBodyFrom(services) : undefined;
    let accessBodyVersion: string | number = "-";
    const notKept = async () => ({ overview: await build(user, personaParam, services), kept: false });
    if (port) {
      if (!port.readyVersion) return notKept();
      try {
        accessBodyVersion = await bounded(port.readyVersion(), accessBodyTimeoutMs);
      } catch {
        return notKept();
      }
    }
    const at = now();
    const key = {
      caller,
      versions: [graph.version(), accessBodyVersion],
      args: [persona, isoDay(at), berlinDate(at), isoDay(new Date(at.getTime() + 90 * DAY))],
    };
    try {
      const overview = await keptOverviews(key, async () => {
        const built = await build(user, personaParam, services);
        if (port && built.accessBody !== "available") throw new NotKept(built);
        return built;
      });
      return { overview, kept: true };
    } catch (e) {
      if (e instanceof NotKept) return { overview: e.overview, kept: false };
      throw e;
    }
  }

  return { forUser };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
