import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { createRenderCache, RenderedDocument, renderKey } from "./render-cache";

const doc = (html: string) => new RenderedDocument(html);
const text = (d: RenderedDocument) => d.body.toString();

describe("the render cache", () => {
  it("renders once per key and answers the same document again", async () => {
    const cache = createRenderCache();
    let renders = 0;
    const render = async () => doc(`<p>${++renders}</p>`);
    expect(text(await cache.get("a", render))).toBe("<p>1</p>");
    expect(text(await cache.get("a", render))).toBe("<p>1</p>");
    expect(text(await cache.get("b", render))).toBe("<p>2</p>");
    expect(cache.stats()).toMatchObject({ entries: 2, hits: 1, misses: 2 });
  });

  it("shares one render between the requests that ask while it is under way", async () => {
    const cache = createRenderCache();
    let renders = 0;
    const render = () => new Promise<RenderedDocument>((r) => setTimeout(() => r(doc(`${++renders}`)), 5));
    const answers = await Promise.all([
      cache.get("k", render),
      cache.get("k", render),
      cache.get("k", render),
    ]);
    expect(answers.map(text)).toEqual(["1", "1", "1"]);
    expect(renders).toBe(1);
  });

  it("renders again once an entry is older than its time to live", async () => {
    // a clock past its epoch (lru-cache reads a start of 0 as "no time to live")
    let t = 5000;
    const cache = createRenderCache({ ttlMs: 1000, now: () => t });
    let renders = 0;
    const render = async () => doc(String(++renders));
    await cache.get("k", render);
    t = 6000; // lru-cache's time to live: stale once more than ttl has passed
    expect(text(await cache.get("k", render))).toBe("1");
    t = 6001;
    expect(text(await cache.get("k", render))).toBe("2");
    expect(cache.stats().entries).toBe(1);
  });

  it("lets the least recently used go past its entry and size limits", async () => {
    const cache = createRenderCache({ maxEntries: 2, maxBytes: 1000 });
    let renders = 0;
    const render = async () => doc(`${++renders}`);
    await cache.get("a", render);
    await cache.get("b", render);
    await cache.get("a", render); // a is now the most recently used
    await cache.get("c", render); // b goes
    expect(text(await cache.get("a", render))).toBe("1");
    expect(text(await cache.get("b", render))).toBe("4");
    expect(cache.stats().entries).toBe(2);

    const small = createRenderCache({ maxBytes: 10 });
    await small.get("k1", async () => doc("12345")); // 7 bytes
    await small.get("k2", async () => doc("ü")); // 4 more (ü is two bytes): k1 goes
    expect(small.stats()).toMatchObject({ entries: 1, bytes: 4 });
    // a document larger than the whole cache is answered, not kept
    expect(text(await small.get("k3", async () => doc("x".repeat(20))))).toBe("x".repeat(20));
    expect(small.stats()).toMatchObject({ entries: 1, bytes: 4 });
  });

  it("keeps nothing from a render that fails", async () => {
    const cache = createRenderCache();
    await expect(cache.get("k", () => Promise.reject(new Error("render failed")))).rejects.toThrow(
      "render failed",
    );
    expect(text(await cache.get("k", async () => doc("ok")))).toBe("ok");
  });
});

describe("a page's render key", () => {
  it("holds the URL and the loaders' data, and is none for data JSON would not tell apart", () => {
    const a = renderKey("http://h/x", { loaderData: { root: { user: "a" } }, actionData: null });
    const b = renderKey("http://h/x", { loaderData: { root: { user: "b" } }, actionData: null });
    expect(a).not.toBe(b);
    expect(renderKey("http://h/y", { loaderData: { root: { user: "a" } }, actionData: null })).not.toBe(a);
    for (const odd of [Promise.resolve(1), new Map(), new Set(), () => 1])
      expect(renderKey("http://h/x", { loaderData: { r: { odd } }, actionData: null })).toBeNull();
    expect(renderKey("http://h/x", { loaderData: {}, actionData: { r: 1 } })).toBeNull();
  });
});

describe("a rendered document", () => {
  const sha256 = (t: string) => createHash("sha256").update(t, "utf8").digest("base64");

  it("names the SHA-256 of each inline script's text (UTF-8), once each, and none of a script with src", () => {
    const d = doc(
      '<script>"Zoë"</script><p>x</p><script type="module">import "/build/a.js";\n</script>' +
        '<script src="/build/b.js"></script><SCRIPT async src=/c.js></SCRIPT><script>"Zoë"</script>',
    );
    expect(d.scriptHashes).toEqual([sha256('"Zoë"'), sha256('import "/build/a.js";\n')]);
    expect(doc("<p>no script</p>").scriptHashes).toEqual([]);
  });

  it("is its bytes as rendered, and their gzip made once", () => {
    const html = `<!DOCTYPE html><p>${"é".repeat(2000)}</p>`;
    const d = doc(html);
    expect(d.body.raw.toString()).toBe(html);
    expect(d.byteLength).toBe(Buffer.byteLength(html));
    expect(gunzipSync(d.body.gzip()).toString()).toBe(html);
    expect(d.body.gzip()).toBe(d.body.gzip());
  });
});
