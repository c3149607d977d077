import { describe, expect, it } from "vitest";
import { json } from "./errors";
import { deepFrozen } from "./kept";

/** json() answers, per request or of a kept value, hold their body (node-adapter.ts): every web reader still gets the same body. */
describe("a JSON answer read as a web Response", () => {
  it("reads by text(), json(), arrayBuffer(), bytes() and blob()", async () => {
    const body = { a: 1, b: "ü" };
    expect(await json(body).text()).toBe('{"a":1,"b":"ü"}');
    expect(await json(body).json()).toEqual(body);
    expect(new TextDecoder().decode(await json(body).arrayBuffer())).toBe('{"a":1,"b":"ü"}');
    expect(new TextDecoder().decode(await json(body).bytes())).toBe('{"a":1,"b":"ü"}');
    const blob = await json(body).blob();
    expect([blob.type, await blob.text()]).toEqual(["application/json; charset=utf-8", '{"a":1,"b":"ü"}']);
  });

  it("keeps status and headers, reads once, and clones before a read", async () => {
    const r = json({ error: "x" }, 409, { "Retry-After": "5" });
    expect([r.status, r.ok, r.headers.get("retry-after"), r.headers.get("content-type")]).toEqual([
      409,
      false,
      "5",
      "application/json; charset=utf-8",
    ]);
    expect(await r.clone().json()).toEqual({ error: "x" });
    expect(r.bodyUsed).toBe(false);
    expect(await r.json()).toEqual({ error: "x" });
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
    expect(() => r.clone()).toThrow(TypeError);
  });

  it("gives a stream as body, and a copy for HEAD keeps status and headers", async () => {
    const r = json({ n: [1, 2, 3] });
    expect(await new Response(r.body).json()).toEqual({ n: [1, 2, 3] });
    const head = new Response(null, json({ n: 1 }, 201));
    expect([head.status, head.headers.get("cache-control"), await head.text()]).toEqual([
      201,
      "no-store",
      "",
    ]);
  });

  it("reads a kept value's answer, encoded once, the same ways", async () => {
    const kept = deepFrozen({ graph: ["ü"] });
    expect(await json(kept).json()).toEqual({ graph: ["ü"] });
    expect(await json(kept).text()).toBe('{"graph":["ü"]}');
    expect(await new Response(json(kept).body).text()).toBe('{"graph":["ü"]}');
    const r = json(kept);
    expect([r.status, r.headers.get("content-type"), await r.clone().text()]).toEqual([
      200,
      "application/json; charset=utf-8",
      '{"graph":["ü"]}',
    ]);
  });
});
