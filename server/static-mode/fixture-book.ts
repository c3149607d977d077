import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { callKey, type Canonical } from "./keys";

/**
 * The fixtures of static mode on disk: `fixtures/static/<service>/<method>.json`, each
 * `{ service, method, calls: [{ args, result } | { args, error }] }`, calls sorted by their key
 * so that regenerating gives small diffs. Files are read lazily, on the first call that needs them.
 */

export interface RecordedError {
  status: number;
  message: string;
  detail?: string;
  extra?: Record<string, unknown>;
}

export interface RecordedCall {
  args: Canonical[];
  result?: unknown;
  error?: RecordedError;
  /** the real method answered synchronously (replay does the same) */
  sync?: true;
}

export interface FixtureFile {
  service: string;
  method: string;
  calls: RecordedCall[];
}

export const DEFAULT_FIXTURES_DIR = "fixtures/static";

export function fixturePath(dir: string, service: string, method: string): string {
  return path.join(dir, service, `${method}.json`);
}

export class FixtureBook {
  private readonly files = new Map<string, Map<string, RecordedCall>>();

  /** `dir` undefined: an in-memory book (recording) */
  constructor(readonly dir?: string) {}

  private table(service: string, method: string): Map<string, RecordedCall> {
    const id = `${service}.${method}`;
    let t = this.files.get(id);
    if (t) return t;
    t = new Map();
    if (this.dir) {
      const file = fixturePath(this.dir, service, method);
      if (existsSync(file)) {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as FixtureFile;
        for (const c of parsed.calls) t.set(JSON.stringify(c.args), c);
      }
    }
    this.files.set(id, t);
    return t;
  }

  lookup(service: string, method: string, args: readonly unknown[]): RecordedCall | undefined {
    return this.table(service, method).get(callKey(args));
  }

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

/** every fixture file under `dir` (for the schema test and the export) */
export function readAllFixtures(dir: string): FixtureFile[] {
  if (!existsSync(dir)) return [];
  const out: FixtureFile[] = [];
  for (const service of readdirSync(dir, { withFileTypes: true })) {
    if (!service.isDirectory()) continue;
    for (const f of readdirSync(path.join(dir, service.name))) {
      if (!f.endsWith(".json")) continue;
      out.push(JSON.parse(readFileSync(path.join(dir, service.name, f), "utf8")) as FixtureFile);
    }
  }
  return out;
}
