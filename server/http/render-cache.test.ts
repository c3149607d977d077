import { describe, expect, it } from "vitest";
import { createRenderCache, noncePlaceholder, RenderedDocument } from "./render-cache";

const SLOT = "hubnonceslot";
const doc = (html: string) => new RenderedDocument(html, SLOT);
const text = (d: RenderedDocument) => d.withNonce("N").toString();

describe("the render cache", () => {
  it("renders once per key and answers the same document again", () => {
    const cache = createRenderCache();
    let renders = 0;
    const render = () => doc(`<p>${++renders}</p>`);
    expect(text(cache.get("a", render))).toBe("<p>1</p>");
    expect(text(cache.get("a", render))).toBe("<p>1</p>");
    expect(text(cache.get("b", render))).toBe("<p>2</p>");
    expect(cache.stats()).toMatchObject({ entries: 2, hits: 1, misses: 2 });
  });

  it("renders again once an entry is older than its time to live", () => {
    let t = 0;
    const cache = createRenderCache({ ttlMs: 1000, now: () => t });
    let renders = 0;
    const render = () => doc(String(++renders));
    cache.get("k", render);
    t = 999;
    expect(text(cache.get("k", render))).toBe("1");
    t = 1000;
    expect(text(cache.get("k", render))).toBe("2");
    expect(cache.stats().entries).toBe(1);
  });

  it("lets the least recently used go past its entry and size limits", () => {
    const cache = createRenderCache({ maxEntries: 2, maxBytes: 1000 });
    let renders = 0;
    const render = () => doc(`${++renders}`);
    cache.get("a", render);
    cache.get("b", render);
    cache.get("a", render); // a is now the most recently used
    cache.get("c", render); // b goes
    expect(text(cache.get("a", render))).toBe("1");
    expect(text(cache.get("b", render))).toBe("4");
    expect(cache.stats().entries).toBe(2);

    const small = createRenderCache({ maxBytes: 10 });
    small.get("k1", () => doc("12345")); // 7 bytes
    small.get("k2", () => doc("ü")); // 4 more (ü is two bytes): k1 goes
    expect(small.stats()).toMatchObject({ entries: 1, bytes: 4 });
    // a document larger than the whole cache is answered, not kept
    expect(text(small.get("k3", () => doc("x".repeat(20))))).toBe("x".repeat(20));
    expect(small.stats()).toMatchObject({ entries: 1, bytes: 4 });
  });

  it("keeps nothing from a render that throws", () => {
    const cache = createRenderCache();
    expect(() =>
      cache.get("k", () => {
        throw new Error("render failed");
      }),
    ).toThrow("render failed");
    expect(text(cache.get("k", () => doc("ok")))).toBe("ok");
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
