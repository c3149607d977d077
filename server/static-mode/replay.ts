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
 * refused with ApiError 403; a call nobody recorded throws FixtureMissingError naming the file.
 */

export class FixtureMissingError extends Error {
  constructor(
    readonly call: string,
    readonly file: string,
  ) {
    super(
      `Static mode has no fixture for ${call} (${file}). Run \`npm run fixtures\` to record it; ` +
        "a view no link leads to needs its path in WALK.start (server/static-mode/registry.ts).",
    );
    this.name = "FixtureMissingError";
  }
}

export class StaticModeError extends Error {
  override name = "StaticModeError";
}

export interface Miss {
  call: string;
  file: string;
  /** "not-found": a drill-down answered 404 in place; "error": a view needed data the fixtures lack */
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

export const demoWriteError = () => new ApiError(403, DEMO_WRITE_MESSAGE);

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
          // thrown at once: right for synchronous methods, and `await` turns it into the same rejection
          fn = () => {
            throw demoWriteError();
          };
        } else {
          fn = (...callArgs: unknown[]) => {
            const args = m?.key ? m.key(callArgs) : callArgs;
            const hit = state.book.lookup(name, prop, args);
            if (hit) return answer(hit);
            const call = describeCall(name, prop, args);
            const file = fixturePath(state.dir, name, prop);
            const kind = m?.onMissing === "not-found" ? "not-found" : "error";
            state.misses.push({ call, file, kind });
            if (kind === "not-found") throw new ApiError(404, m?.missing ?? OFFLINE_DEMO_LACKS);
            console.error(`[static mode] ${new FixtureMissingError(call, file).message}`);
            throw new FixtureMissingError(call, file);
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

/** a recorded ApiError, to replay it with the same status and text */
export function recordableError(e: unknown) {
  if (!isApiError(e)) return undefined;
  return {
    status: e.status,
    message: e.message,
    ...(e.detail ? { detail: e.detail } : {}),
    ...(e.extra ? { extra: e.extra } : {}),
  };
}
