import { createHash } from "node:crypto";
import { EncodedBody } from "./node-adapter";
import { createKept, EVERYONE } from "./kept/kept";

/**
 * Documents already rendered, by everything their render reads (docs/performance.md). A page's loaders
 * run on every request; when the URL and the loaders' data are the same as for a document rendered a
 * moment ago, React's render would give the same text again, so it is taken from here instead. A
 * document is the same bytes for every answer: its inline scripts are allowed by their hashes, not a
 * nonce (`RenderedDocument.scriptHashes`, server/http/security-headers.ts), so it is encoded once and
 * compressed once (`EncodedBody`).
 *
 * Nothing leaks between users: the key holds the loaders' whole data (the user, what the page shows),
 * so an entry is found only by a request whose page would show exactly the same. Entries live `ttlMs`
 * at most (a view that reads the clock while rendering, e.g. a date compared with today, is current
 * within that), and the least recently used go first past `maxEntries` or `maxBytes` (keys counted
 * as bytes too, at one per character). Requests for the same key share one render; a render that
 * fails is never kept: the kept answers of server/http/kept/kept.ts, as every other cache.
 */
export interface RenderCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  now?: () => number;
}

export type RenderCache = ReturnType<typeof createRenderCache>;

/** what a value that JSON would not tell apart (a promise, a Map, a function…) makes the key: none */
const NOT_KEYABLE = new Error("not keyable");

/**
 * The key of a page's document: its URL and its loaders' and actions' data as JSON, or null when that
 * data holds something JSON would not tell apart (a deferred promise, a Map or Set, a function).
 * `context` is Remix's `EntryContext.staticHandlerContext` (its public type).
 */
export function renderKey(url: string, context: { loaderData: unknown; actionData: unknown }): string | null {
  if (context.actionData) return null;
  try {
    return `${url}\u0000${JSON.stringify(context.loaderData, (_k, v: unknown) => {
      if (
        typeof v === "function" ||
        typeof v === "bigint" ||
        v instanceof Promise ||
        v instanceof Map ||
        v instanceof Set
      )
        throw NOT_KEYABLE;
      return v;
    })}`;
  } catch (e) {
    if (e === NOT_KEYABLE) return null;
    throw e;
  }
}

/** an inline script's text: a `<script>` element without `src` (React escapes `</` inside a script's text) */
const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** a rendered document: its bytes (compressed once) and the SHA-256 hashes (base64) of its inline scripts */
export class RenderedDocument {
  readonly body: EncodedBody;
  readonly scriptHashes: readonly string[];

  constructor(html: string) {
    this.body = new EncodedBody(Buffer.from(html));
    const hashes = new Set<string>();
    for (const [, attributes, text] of html.matchAll(INLINE_SCRIPT))
      if (!/\bsrc\s*=/i.test(attributes!))
        hashes.add(createHash("sha256").update(text!, "utf8").digest("base64"));
    this.scriptHashes = [...hashes];
  }

  get byteLength(): number {
    return this.body.byteLength;
  }
}

export function createRenderCache(options: RenderCacheOptions = {}) {
  const ttlMs = options.ttlMs ?? 10_000;
  // the one way to keep answers (kept.ts); a document's size counts its key too, one byte a character
  const kept = createKept<{ doc: RenderedDocument; size: number }>({
    max: options.maxEntries ?? 200,
    maxSize: options.maxBytes ?? 8_000_000,
    sizeOf: (e) => e.size,
    ttlOf: () => ttlMs,
    ...(options.now ? { now: options.now } : {}),
  });
  let gets = 0;
  let misses = 0;
  return {
    /** the document for `key`: kept (or being rendered), else `render()`'s, kept once it succeeds */
    async get(key: string, render: () => Promise<RenderedDocument>): Promise<RenderedDocument> {
      gets++;
      const e = await kept({ caller: EVERYONE, versions: [], args: [key] }, async () => {
        misses++;
        const doc = await render();
        return { doc, size: key.length + doc.byteLength };
      });
      return e.doc;
    },
    stats: () => ({ entries: kept.size(), bytes: kept.bytes(), hits: gets - misses, misses }),
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
