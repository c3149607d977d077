import { notFound } from "../http/errors";
import {
  COMPONENT_NAMES,
  DEPENDS,
  PROBE_CALLS,
  SLOW_MS,
  describeComponent,
  type Component,
  type ComponentDeps,
  type ComponentName,
  type ComponentState,
  type Diagnosis,
  type Topology,
} from "./component-model";
import { createProbes } from "./component-probes";
import { remedies } from "./component-remedies";
import { createRestarts } from "./component-restart";

/**
 * The components the hub depends on, probed for real: each probe makes the cheapest call that
 * proves the component answers what the hub needs (a graph round-trip, the provider's discovery
 * document, a list call on each management API, the language back end's probe). The last probe,
 * the last error and the last restart of each are kept for the diagnosis; a restart re-creates
 * the component's client, or restarts the embedded service it runs in, and is refused with a
 * reason where neither is possible.
 *
 * This module composes component-model.ts (names, types, descriptions), component-probes.ts,
 * component-remedies.ts and component-restart.ts.
 */

export {
  COMPONENT_NAMES,
  SLOW_MS,
  type Component,
  type ComponentDeps,
  type ComponentName,
  type Diagnosis,
  type Health,
  type MutableContainer,
  type RestartResult,
  type Topology,
} from "./component-model";

export function createComponents(deps: ComponentDeps) {
  const { dataspace } = deps;
  const state = new Map<ComponentName, ComponentState>(COMPONENT_NAMES.map((n) => [n, {}]));
  /** the relying-party client in use (a restart replaces it here and in the container) */
  let oidcClient = deps.oidc;
  const { probe } = createProbes(deps, () => oidcClient);
  const describe = (name: ComponentName) => describeComponent(name, deps, oidcClient);

  async function check(name: ComponentName): Promise<Component> {
    const outcome = await probe(name);
    const at = new Date().toISOString();
    const s = state.get(name)!;
    s.last = { outcome, at };
    if (outcome.error) s.lastError = { at, message: outcome.error };
    return {
      ...describe(name),
      health: outcome.health,
      latencyMs: outcome.latencyMs,
      checkedAt: at,
      observed: outcome.observed,
    };
  }

  const isName = (n: string): n is ComponentName => (COMPONENT_NAMES as readonly string[]).includes(n);
  function named(n: string): ComponentName {
    if (!isName(n)) throw notFound(`No component ${n}: the components are ${COMPONENT_NAMES.join(", ")}`);
    return n;
  }

  const restarts = createRestarts(deps, {
    state,
    check,
    probe,
    named,
    setOidc: (client) => {
      oidcClient = client;
    },
  });

  return {
    names: COMPONENT_NAMES,
    async list(): Promise<Component[]> {
      return Promise.all(COMPONENT_NAMES.map((n) => check(n)));
    },
    async topology(): Promise<Topology> {
      const list = await Promise.all(COMPONENT_NAMES.map((n) => check(n)));
      return {
        nodes: [
          { id: "hub", label: "Health Dataspace Hub", kind: "this server", health: "self", embedded: true },
          ...list.map((c) => ({
            id: c.name,
            label: c.label,
            kind: c.kind,
            health: c.health,
            embedded: c.embedded,
          })),
        ],
        edges: DEPENDS.map(([source, target, type, label]) => ({
          id: `${source}->${target}`,
          source,
          target,
          type,
          label,
        })),
        meta: { checkedAt: new Date().toISOString(), embeddedDataspace: dataspace.mode === "embedded" },
      };
    },
    async diagnosis(n: string): Promise<Diagnosis> {
      const name = named(n);
      const component = await check(name);
      const s = state.get(name)!;
      const outcome = s.last!.outcome;
      return {
        component,
        probe: {
          call: PROBE_CALLS[name],
          observed: outcome.observed,
          latencyMs: outcome.latencyMs,
          at: s.last!.at,
          thresholdMs: SLOW_MS,
        },
        lastError: s.lastError ?? null,
        lastRestart: s.lastRestart ?? null,
        remedy: remedies(name, outcome, deps),
        dependsOn: DEPENDS.filter(([src]) => src === name).map(([, t]) => t),
        usedBy: DEPENDS.filter(([, t]) => t === name).map(([src]) => src),
      };
    },
    restart: restarts.restart,
    close: restarts.close,
  };
}

export type Components = ReturnType<typeof createComponents>;
