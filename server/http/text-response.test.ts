import { describe, expect, it } from "vitest";
import { json, jsonBuffer } from "./errors";
import { EncodedBody } from "./node-adapter";

/** json() and jsonBuffer() answers hold their body (node-adapter.ts): every web reader still gets the same body. */
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

  it("reads a pre-encoded answer (jsonBuffer) the same ways", async () => {
    const encoded = new EncodedBody(Buffer.from('{"graph":["ü"]}'));
    expect(await jsonBuffer(encoded).json()).toEqual({ graph: ["ü"] });
    expect(await jsonBuffer(encoded).text()).toBe('{"graph":["ü"]}');
    expect(await new Response(jsonBuffer(encoded).body).text()).toBe('{"graph":["ü"]}');
    const r = jsonBuffer(encoded);
    expect([r.status, r.headers.get("content-type"), await r.clone().text()]).toEqual([
      200,
      "application/json; charset=utf-8",
      '{"graph":["ü"]}',
    ]);
  });
});

/** a body made per request of kept parts (EncodedBody chunks): written chunk by chunk, read as one */
describe("a body of chunks", () => {
  const parts = ['{"generatedAt":', '"2026-11-28T07:00:00.000Z"', `,"items":"${"ü".repeat(3000)}"}`];
  const chunked = () =>
    new EncodedBody(
      parts.map((p) => Buffer.from(p)),
      { compress: false },
    );
  const whole = parts.join("");

  it("reads as the joined text, with the byte length of its parts", async () => {
    const body = chunked();
    expect(body.byteLength).toBe(Buffer.byteLength(whole));
    expect(String(body)).toBe(whole);
    expect(await jsonBuffer(chunked()).json()).toEqual(JSON.parse(whole));
    expect(await new Response(jsonBuffer(chunked()).body).text()).toBe(whole);
  });

  it("is sent whole over HTTP, by both write paths, with its Content-Length", async () => {
    const { createServer } = await import("node:http");
    const { sendWebResponse } = await import("./node-adapter");
    const server = createServer((req, res) => {
      const response = jsonBuffer(chunked());
      // the web-headers path: something set a header on the Node response first
      if (req.url === "/set-first") res.setHeader("x-first", "1");
      void sendWebResponse(res, response, req.headers["accept-encoding"]);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as { port: number };
      for (const path of ["/held", "/set-first"]) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          headers: { "accept-encoding": "gzip" },
        });
        expect(res.headers.get("content-length"), path).toBe(String(Buffer.byteLength(whole)));
        expect(res.headers.get("content-encoding"), path).toBeNull(); // made per request: not compressed
        expect(await res.text(), path).toBe(whole);
      }
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
