import type { Services } from "../../server/services";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  FixtureBook,
  fixturePath,
  type FixtureFile,
  type RecordedCall,
} from "../../server/static-mode/fixture-book";
import { callKey, type Canonical } from "../../server/static-mode/keys";
import { REGISTRY, type MethodEntry, type Registry } from "../../server/static-mode/registry";
import { isApiError } from "../../server/http/errors";

/**
 * The recording side of static mode: wraps the live services named in the registry so that every
 * read call a view makes (outermost calls only: a method calling another method of its own service
 * runs unwrapped) lands in a FixtureBook with its result, or with its ApiError.
 */

/** a recorded ApiError, to replay it with the same status and text */
function recordableError(e: unknown) {
  if (!isApiError(e)) return undefined;
  return {
    status: e.status,
    message: e.message,
    ...(e.detail ? { detail: e.detail } : {}),
    ...(e.extra ? { extra: e.extra } : {}),
  };
}

/** the book a recording fills in memory, then writes as fixture files */
export class RecordingBook extends FixtureBook {
  add(service: string, method: string, args: readonly unknown[], call: Omit<RecordedCall, "args">): void {
    const key = callKey(args);
    this.table(service, method).set(key, { args: JSON.parse(key) as Canonical[], ...call });
  }

  /** every file of the book, calls sorted by key */
  toFiles(): FixtureFile[] {
    const out: FixtureFile[] = [];
    for (const [id, t] of [...this.files].sort(([a], [b]) => a.localeCompare(b))) {
      if (!t.size) continue;
      const [service, method] = id.split(".");
      const calls = [...t].sort(([a], [b]) => a.localeCompare(b)).map(([, c]) => c);
      out.push({ service, method, calls });
    }
    return out;
  }

  /** replaces the service folders under `dir` with this book's files; returns the bytes written */
  writeTo(dir: string): number {
    let bytes = 0;
    const files = this.toFiles();
    for (const service of new Set(files.map((f) => f.service)))
      rmSync(path.join(dir, service), { recursive: true, force: true });
    for (const f of files) {
      const file = fixturePath(dir, f.service, f.method);
      mkdirSync(path.dirname(file), { recursive: true });
      // one call per line: regenerating shows which calls changed
      const text = `{"service":${JSON.stringify(f.service)},"method":${JSON.stringify(f.method)},"calls":[\n${f.calls.map((c) => JSON.stringify(c)).join(",\n")}\n]}\n`;
      writeFileSync(file, text);
      bytes += Buffer.byteLength(text);
    }
    return bytes;
  }
}

export interface Recording {
  services: Services;
  book: RecordingBook;
  /** calls of methods the registry does not classify (recorded as reads; listed by `npm run fixtures`) */
  unclassified: Set<string>;
  /** services views used that the registry does not name (static mode cannot answer them) */
  unregistered: Set<string>;
}

/** members of the container that static mode provides itself */
const INFRASTRUCTURE = new Set([
  "config",
  "sessions",
  "oidc",
  "embeddedIdp",
  "officeHours",
  "runtime",
  "close",
]);

function isPromise(v: unknown): v is Promise<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

const toJson = (v: unknown) => (v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown));

export function recordServices(
  live: Services,
  opts: { registry?: Registry; overrides?: Partial<Services> } = {},
): Recording {
  const registry = opts.registry ?? REGISTRY;
  const overrides = (opts.overrides ?? {}) as Record<string, unknown>;
  const book = new RecordingBook();
  const unclassified = new Set<string>();
  const unregistered = new Set<string>();
  const wrapped: Record<string, unknown> = {};

  for (const [name, entry] of Object.entries(registry)) {
    if (!entry) continue;
    const target = (live as unknown as Record<string, Record<string, unknown> | undefined>)[name];
    if (!target) continue;
    const methods = entry.methods as Record<string, MethodEntry | undefined>;
    // members static mode answers in place (entry.local) are called through, never recorded
    const local = (entry.local ?? {}) as Record<string, unknown>;
    wrapped[name] = new Proxy(target, {
      get(t, prop, receiver) {
        const value = Reflect.get(t, prop, receiver) as unknown;
        if (typeof prop === "symbol" || typeof value !== "function") return value;
        const m = methods[prop];
        if ((m && m.kind !== "read") || (!m && prop in local))
          return (value as (...a: unknown[]) => unknown).bind(t);
        return (...callArgs: unknown[]) => {
          if (!m) unclassified.add(`${name}.${prop}`);
          const args = m?.key ? m.key(callArgs) : callArgs;
          let out: unknown;
          try {
            out = (value as (...a: unknown[]) => unknown).apply(t, callArgs);
          } catch (e) {
            const error = recordableError(e);
            if (error) book.add(name, prop, args, { error, sync: true });
            throw e;
          }
          if (!isPromise(out)) {
            book.add(name, prop, args, { result: toJson(out), sync: true });
            return out;
          }
          return out.then(
            (v) => {
              book.add(name, prop, args, { result: toJson(v) });
              return v;
            },
            (e: unknown) => {
              const error = recordableError(e);
              if (error) book.add(name, prop, args, { error });
              throw e;
            },
          );
        };
      },
    });
  }

  const services = new Proxy(live, {
    get(t, prop, receiver) {
      if (typeof prop === "string" && prop in overrides) return overrides[prop];
      if (typeof prop === "string" && prop in wrapped) return wrapped[prop];
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (
        typeof prop === "string" &&
        !INFRASTRUCTURE.has(prop) &&
        typeof value === "object" &&
        value !== null
      )
        unregistered.add(prop);
      return value;
    },
  });
  return { services, book, unclassified, unregistered };
}
