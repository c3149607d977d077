import { describe, expect, it } from "vitest";
import { createRenderCache, noncePlaceholder, RenderedDocument, renderKey } from "./render-cache";

const SLOT = "hubnonceslot";
const doc = (html: string) => new RenderedDocument(html, SLOT);
const text = (d: RenderedDocument) => d.withNonce("N").toString();

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
    let t = 0;
    const cache = createRenderCache({ ttlMs: 1000, now: () => t });
    let renders = 0;
    const render = async () => doc(String(++renders));
    await cache.get("k", render);
    t = 999;
    expect(text(await cache.get("k", render))).toBe("1");
    t = 1000;
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

describe("the nonce put into a rendered document", () => {
  it("replaces every placeholder with the answer's nonce, in UTF-8", () => {
    const slot = noncePlaceholder();
    expect(slot).toMatch(/^[a-z0-9]+$/);
    expect(noncePlaceholder()).not.toBe(slot);
    const d = new RenderedDocument(
      `<script nonce="${slot}">"Zoë"</script><style nonce="${slot}"></style>`,
      slot,
    );
    const bytes = d.withNonce("a$&b+/=");
    expect(bytes.toString()).toBe('<script nonce="a$&b+/=">"Zoë"</script><style nonce="a$&b+/="></style>');
    expect(d.withNonce("other").toString()).toContain('nonce="other"');
    expect(new RenderedDocument("no nonce here", slot).withNonce("x").toString()).toBe("no nonce here");
  });
});
