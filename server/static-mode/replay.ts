import { ApiError, isApiError } from "../http/errors";
import { createOfficeGate } from "../http/office-gate";
import type { Config } from "../config";
import type { Services } from "../services";
import { FixtureBook, DEFAULT_FIXTURES_DIR, fixturePath, type RecordedCall } from "./fixture-book";
import { describeCall } from "./keys";
import { personaSessions, staticSignIn } from "./personas";
import {
  DEMO_WRITE_MESSAGE,
  OFFLINE_DEMO_LACKS,
  REGISTRY,
  type MethodEntry,
  type Registry,
  type ServiceEntry,
} from "./registry";

/**
 * Static mode's service container: the same service interfaces the views use, answered from
 * fixtures. Reads replay what `npm run fixtures` recorded for the same arguments; writes are
 * refused with ApiError 403; a call nobody recorded throws FixtureMissingError: a 404 that says in
 * plain words that the offline demo does not include it (a page shows it as its "not found" answer:
 * server/static-mode/http.ts), naming the call and the fixture file for developers (`developerMessage`,
 * logged, and the misses the view walk counts).
 */

export class FixtureMissingError extends ApiError {
  /** recognised structurally (isFixtureMissing), across separately bundled copies of this module */
  readonly fixtureMissing = true as const;
  readonly developerMessage: string;
  constructor(
    readonly call: string,
    readonly file: string,
    message = OFFLINE_DEMO_LACKS,
  ) {
    super(404, message);
    this.name = "FixtureMissingError";
    this.developerMessage =
      `Static mode has no fixture for ${call} (${file}). Run \`npm run fixtures\` to record it; ` +
      "a view no link leads to needs its path in WALK.start (scripts/static-mode/walk.ts).";
  }
}

/** a read static mode has no recording of (FixtureMissingError, from any copy of this module) */
export function isFixtureMissing(e: unknown): e is FixtureMissingError {
  return isApiError(e) && (e as { fixtureMissing?: unknown }).fixtureMissing === true;
}

export class StaticModeError extends Error {
  override name = "StaticModeError";
}

export interface Miss {
  call: string;
  file: string;
  /**
   * "not-found": a drill-down whose arguments a visitor chooses freely; "error": any other read, e.g. a
   * view the walk reaches needing data the fixtures lack. Both answer 404 in plain words.
   */
  kind: "error" | "not-found";
}

export interface StaticState {
  book: FixtureBook;
  misses: Miss[];
  dir: string;
}

const states = new WeakMap<object, StaticState>();

/** the replay state of a static-mode container (misses, for the view test), or undefined in live mode */
export function staticStateOf(services: Services): StaticState | undefined {
  return states.get(services);
}

/** the misses a server keeps (for the view walk's check): visitors can make up any number of addresses */
const MAX_MISSES = 10_000;

function answer(call: RecordedCall): unknown {
  if (call.error) {
    const e = new ApiError(call.error.status, call.error.message, call.error.detail, call.error.extra);
    if (call.sync) throw e;
    return Promise.reject(e);
  }
  const value = call.result === undefined ? undefined : structuredClone(call.result);
  return call.sync ? value : Promise.resolve(value);
}

function replayService(name: string, entry: ServiceEntry<unknown>, state: StaticState): object {
  const methods = entry.methods as Record<string, MethodEntry | undefined>;
  const local = (entry.local ?? {}) as Record<string, unknown>;
  const cache = new Map<string, unknown>();
  return new Proxy(
    {},
    {
      get(_t, prop) {
        if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
        if (prop in local) return local[prop];
        if (cache.has(prop)) return cache.get(prop);
        const m = methods[prop];
        let fn: (...args: unknown[]) => unknown;
        if (m?.kind === "write") {
          // a rejection, as every write is async live: a caller's `.catch` (not only `await`) sees it
          fn = () => Promise.reject(new ApiError(403, DEMO_WRITE_MESSAGE));
        } else {
          fn = (...callArgs: unknown[]) => {
            const args = m?.key ? m.key(callArgs) : callArgs;
            const hit = state.book.lookup(name, prop, args);
            if (hit) return answer(hit);
            const call = describeCall(name, prop, args);
            const file = fixturePath(state.dir, name, prop);
            const kind = m?.onMissing === "not-found" ? "not-found" : "error";
            if (state.misses.length < MAX_MISSES) state.misses.push({ call, file, kind });
            // what a visitor reads: the method's own sentence, or that the offline demo lacks it (never a 500)
            const missing = new FixtureMissingError(call, file, m?.missing ?? OFFLINE_DEMO_LACKS);
            if (kind === "error") console.error(`[static mode] ${missing.developerMessage}`);
            throw missing;
          };
        }
        cache.set(prop, fn);
        return fn;
      },
      has: (_t, prop) => typeof prop === "string" && (prop in local || prop in methods),
    },
  );
}

export interface StaticOptions {
  /** where the fixtures are (default fixtures/static under the working directory) */
  fixturesDir?: string;
  registry?: Registry;
}

export function createStaticServices(config: Config, opts: StaticOptions = {}): Services {
  const dir = opts.fixturesDir ?? DEFAULT_FIXTURES_DIR;
  const state: StaticState = { book: new FixtureBook(dir), misses: [], dir };
  const known: Record<string, unknown> = {
    config,
    sessions: personaSessions(),
    oidc: staticSignIn(),
    embeddedIdp: undefined,
    officeHours: createOfficeGate(config),
    runtime: { internalOrigin: undefined },
    close: async () => {},
  };
  for (const [name, entry] of Object.entries(opts.registry ?? REGISTRY)) {
    if (entry) known[name] = replayService(name, entry as ServiceEntry<unknown>, state);
  }
  const services = new Proxy(known, {
    get(t, prop) {
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      if (prop in t) return t[prop];
      throw new StaticModeError(
        `services.${prop} is not available in static mode: add it to the registry in server/static-mode/registry.ts ` +
          "(its read methods are then recorded by `npm run fixtures`).",
      );
    },
    set(t, prop, value) {
      if (typeof prop === "string") t[prop] = value;
      return true;
    },
  }) as unknown as Services;
  states.set(services, state);
  return services;
}
