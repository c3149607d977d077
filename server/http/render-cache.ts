/**
 * Documents already rendered, by everything their render reads (decision 0035). A page's loaders run
 * on every request, and their data is encoded for the browser (the single-fetch hand-off) before the
 * render; when the URL and that encoded data are the same as for a document rendered a moment ago,
 * React's render would give the same text again, so it is taken from here instead. Only the CSP nonce
 * differs per answer: documents are rendered with a placeholder in its place, kept as the bytes
 * between the placeholders, and each answer gets its own nonce put in (`RenderedDocument.withNonce`).
 *
 * Nothing leaks between users: the key holds the whole hand-off (the user, the loaders' data), so an
 * entry is found only by a request whose page would show exactly the same. Entries live `ttlMs` at
 * most (a view that reads the clock while rendering, e.g. a date compared with today, is current
 * within that), and the least recently used go first past `maxEntries` or `maxBytes` (keys counted
 * as bytes too, at one per character).
 */
export interface RenderCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  now?: () => number;
}

export interface RenderCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
}

export interface RenderCache {
  /** the document for `key`: from the cache, else `render()` (kept) */
  get(key: string, render: () => RenderedDocument): RenderedDocument;
  stats(): RenderCacheStats;
}

/** a rendered document as the bytes between its nonce placeholders */
export class RenderedDocument {
  private readonly parts: Buffer[];
  readonly byteLength: number;

  constructor(html: string, placeholder: string) {
    this.parts = html.split(placeholder).map((s) => Buffer.from(s));
    this.byteLength = this.parts.reduce((n, p) => n + p.byteLength, 0);
  }

  /** the document's bytes with this answer's nonce in place of each placeholder */
  withNonce(nonce: string): Buffer<ArrayBuffer> {
    const n = Buffer.from(nonce);
    const list: Buffer[] = [this.parts[0]!];
    for (let i = 1; i < this.parts.length; i++) list.push(n, this.parts[i]!);
    // (its memory an ArrayBuffer, as concat allocates it, never a SharedArrayBuffer)
    return Buffer.concat(
      list,
      this.byteLength + n.byteLength * (this.parts.length - 1),
    ) as Buffer<ArrayBuffer>;
  }
}

export function createRenderCache(options: RenderCacheOptions = {}): RenderCache {
  const maxEntries = options.maxEntries ?? 200;
  const maxBytes = options.maxBytes ?? 8_000_000;
  const ttlMs = options.ttlMs ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { doc: RenderedDocument; at: number }>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const drop = (key: string, doc: RenderedDocument) => {
    entries.delete(key);
    bytes -= key.length + doc.byteLength;
  };

  return {
    get(key, render) {
      const t = now();
      const found = entries.get(key);
      if (found && t - found.at < ttlMs) {
        hits++;
        // most recently used last: Map keeps insertion order
        entries.delete(key);
        entries.set(key, found);
        return found.doc;
      }
      if (found) drop(key, found.doc);
      misses++;
      const doc = render();
      const size = key.length + doc.byteLength;
      if (size > maxBytes) return doc;
      entries.set(key, { doc, at: t });
      bytes += size;
      for (const [k, e] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        drop(k, e.doc);
      }
      return doc;
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  };
}

const SHARED = Symbol.for("health-dataspace-hub.render-cache");

/**
 * The process's render cache. A registered symbol on the global object, because the Remix build
 * (app/entry.server.tsx renders through it) and the server bundle (its counters: the running
 * server's `renderCache()`, server/app.ts) are two bundles, each with its own copy of this module.
 */
export function sharedRenderCache(): RenderCache {
  const holder = globalThis as unknown as Record<symbol, RenderCache | undefined>;
  return (holder[SHARED] ??= createRenderCache());
}

/**
 * What a document is rendered with in place of its nonce: letters and digits only (nothing a render
 * escapes), new for each process, so no page text can hold it by chance.
 */
export function noncePlaceholder(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `hubnonce${Buffer.from(bytes).toString("hex")}`;
}
