import { createHealthMonitor } from "../health";
import { notFound } from "../http/errors";
import { deepFrozen } from "../http/kept";
import {
  COMPONENT_NAMES,
  DEPENDS,
  LABELS,
  PROBE_CALLS,
  SLOW_MS,
  describeComponent,
  type Component,
  type ComponentDeps,
  type ComponentName,
  type ComponentState,
  type Diagnosis,
  type MutableContainer,
  type RestartResult,
  type Topology,
} from "./component-model";
import { createProbes } from "./component-probes";
import { remedies } from "./component-remedies";
import { createRestarts } from "./component-restart";
import { READING_IDLE_STOP_MS, READING_INTERVAL_MS, type Reading } from "./readings";

/**
 * The components the hub depends on, probed for real: each probe makes the cheapest call that
 * proves the component answers what the hub needs (a graph round-trip, the provider's discovery
 * document, a list call on each management API, the language back end's probe). The last probe,
 * the last error and the last restart of each are kept for the diagnosis; a restart re-creates
 * the component's client, or restarts the embedded service it runs in, and is refused with a
 * reason where neither is possible.
 *
 * The list and the topology answer the last background round of probes (readings.ts). A restart
 * (done, refused or failed) forgets the round at once: the next read waits for a round started
 * after it. The diagnosis probes its one component when asked.
 */

export function createComponents(deps: ComponentDeps) {
  const { dataspace } = deps;
  const state = new Map<ComponentName, ComponentState>(COMPONENT_NAMES.map((n) => [n, {}]));
  /** the relying-party client in use (a restart replaces it here and in the container) */
  let oidcClient = deps.oidc;
  const { probe } = createProbes(deps, () => oidcClient);
  const describe = (name: ComponentName) => ({
    name,
    label: LABELS[name],
    ...describeComponent(name, deps, oidcClient),
  });

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

  /** one round: every component probed at once, and the topology drawn from it */
  const rounds = createHealthMonitor<Round | { error: unknown }>({
    probe: async () => {
      const checked = await Promise.all(COMPONENT_NAMES.map((n) => check(n)));
      // shared by every answer of the round, kept (server/http/kept): nobody may change them
      const list = deepFrozen(checked);
      const checkedAt = new Date().toISOString();
      return { list, topology: deepFrozen(topologyOf(list, checkedAt, dataspace.mode === "embedded")) };
    },
    failed: (error) => ({ error }),
    intervalMs: READING_INTERVAL_MS,
    idleStopMs: READING_IDLE_STOP_MS,
  });
  /** a part of the last round, and how old that round is */
  async function reading<T>(part: (round: Round) => T): Promise<Reading<T>> {
    const { health, ageMs } = await rounds.read();
    if ("error" in health) {
      rounds.invalidate(); // a failed round is not kept: the next read tries again
      throw health.error;
    }
    return { value: part(health), ageMs };
  }

  /**
   * One component probed now, with its last error, last restart and remedy. Diagnoses of the same
   * component asked while one is under way share it (one probe for requests that came together), so
   * the answer is shared: frozen.
   */
  const diagnosing = new Map<ComponentName, Promise<Diagnosis>>();
  function diagnosis(n: string): Promise<Diagnosis> {
    const name = named(n);
    let pending = diagnosing.get(name);
    if (!pending) {
      pending = diagnose(name).finally(() => diagnosing.delete(name));
      diagnosing.set(name, pending);
    }
    return pending;
  }
  async function diagnose(name: ComponentName): Promise<Diagnosis> {
    const component = await check(name);
    const s = state.get(name)!;
    const outcome = s.last!.outcome;
    return deepFrozen({
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
    });
  }

  return {
    /** every component as the last round of probes saw it, and how old that round is */
    list: () => reading((r) => r.list),
    topology: () => reading((r) => r.topology),
    diagnosis,
    async restart(n: string, container: MutableContainer, by: string): Promise<RestartResult> {
      try {
        return await restarts.restart(n, container, by);
      } finally {
        rounds.invalidate(); // whatever the restart did, the next list shows the components as they are now
      }
    },
    async close() {
      rounds.stop();
      await restarts.close();
    },
  };
}

interface Round {
  list: readonly Component[];
  topology: Topology;
}

/** the dependency graph of one round: this server, the components as probed, and the fixed edges */
export function topologyOf(
  list: readonly Component[],
  checkedAt: string,
  embeddedDataspace: boolean,
): Topology {
  return {
    nodes: [
      {
        id: "hub",
        label: "Health Dataspace Hub",
        kind: "this server",
        health: "self" as const,
        embedded: true,
      },
      ...list.map(({ name: id, label, kind, health, embedded }) => ({ id, label, kind, health, embedded })),
    ],
    edges: DEPENDS.map(([source, target, type, label]) => ({
      id: `${source}->${target}`,
      source,
      target,
      type,
      label,
    })),
    meta: { checkedAt, embeddedDataspace },
  };
}
