import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { callKey, type Canonical } from "./keys";

/**
 * The fixtures of static mode on disk: `fixtures/static/<service>/<method>.json`, each
 * `{ service, method, calls: [{ args, result } | { args, error }] }`, calls sorted by their key
 * so that regenerating gives small diffs. Files are read lazily, on the first call that needs them.
 * Replay only reads; the recorder's RecordingBook (scripts/static-mode/recorder.ts) adds and writes.
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
  protected readonly files = new Map<string, Map<string, RecordedCall>>();

  /** `dir` undefined: an in-memory book (recording: scripts/static-mode/recorder.ts) */
  constructor(readonly dir?: string) {}

  protected table(service: string, method: string): Map<string, RecordedCall> {
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
}
