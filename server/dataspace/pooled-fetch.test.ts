import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { cappedText, UPSTREAM_MAX_BYTES } from "../http/limits";
import { createPooledFetch } from "./pooled-fetch";
import { createUpstreamHttp } from "./upstream-http";

/**
 * The upstream pool against a real HTTP server that closes a kept-alive connection as the next
 * request arrives on it: what a client sees when the upstream restarted or dropped its idle
 * connections while the pool still held one. A read is sent again on a new connection; a write
 * is never sent twice.
 */

let server: Server | undefined;
let pool: ReturnType<typeof createPooledFetch> | undefined;
afterEach(async () => {
  await pool?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = pool = undefined;
});

async function upstream() {
  const served = new WeakMap<Socket, number>();
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ n: seen.length }));
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("createPooledFetch", () => {
  it("sends a read again on a new connection when its kept-alive one is closed under it", async () => {
    const up = await upstream();
    pool = createPooledFetch({ connections: 1 });
    expect((await pool.fetch(`${up.url}/a`)).status).toBe(200);
    const res = await pool.fetch(`${up.url}/b`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ n: 3 });
    expect(up.seen).toEqual(["GET /a", "GET /b", "GET /b"]);
  });

  it("sends it again on a connection of its own: the pool may hold more connections closed by the same restart", async () => {
    const up = await upstream();
    pool = createPooledFetch({ connections: 2 });
    // two kept-alive connections in the pool, each of which the upstream closes on its next request
    const slow = [pool.fetch(`${up.url}/a1`), pool.fetch(`${up.url}/a2`)];
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    const res = await pool.fetch(`${up.url}/b`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    expect(up.seen.slice(2)).toEqual(["GET /b", "GET /b"]);
    // and the pool goes on working
    expect((await pool.fetch(`${up.url}/c`)).status).toBe(200);
  });

  it("does not send a write again: a POST whose connection is closed under it fails", async () => {
    const up = await upstream();
    pool = createPooledFetch({ connections: 1 });
    await pool.fetch(`${up.url}/a`);
    await expect(pool.fetch(`${up.url}/write`, { method: "POST", body: "{}" })).rejects.toMatchObject({
      code: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET|EPIPE/),
    });
    expect(up.seen).toEqual(["GET /a", "POST /write"]);
  });

  it("gives up after the second attempt", async () => {
    const up = await upstream();
    pool = createPooledFetch({ connections: 1 });
    await pool.fetch(`${up.url}/a`);
    // the new connection of the second attempt is answered: to see a second failure, fail every request
    server!.removeAllListeners("request");
    server!.on("request", (req) => {
      up.seen.push(`${req.method} ${req.url}`);
      req.socket.destroy();
    });
    await expect(pool.fetch(`${up.url}/c`)).rejects.toMatchObject({ code: expect.any(String) });
    expect(up.seen).toEqual(["GET /a", "GET /c", "GET /c"]);
  });
});

/** an upstream whose answer is 1 MB more than UPSTREAM_MAX_BYTES, with or without its length */
async function serveTooMuch(sized: boolean): Promise<string> {
  const chunk = Buffer.alloc(1024 * 1024, " ");
  const total = UPSTREAM_MAX_BYTES + chunk.length;
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", ...(sized ? { "content-length": total } : {}) });
    const more = (sent: number): void => {
      if (sent >= total || res.destroyed) return void res.end();
      if (res.write(chunk)) more(sent + chunk.length);
      else res.once("drain", () => more(sent + chunk.length));
    };
    res.write("[");
    more(1);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.each([
  ["with its length", true],
  ["chunked, without one", false],
])("an upstream that answers more than UPSTREAM_MAX_BYTES, %s", (_, sized) => {
  it("is refused as an invalid answer by the pool, not read into the heap", async () => {
    pool = createPooledFetch();
    const http = createUpstreamHttp({
      name: "connector",
      baseUrl: await serveTooMuch(sized),
      timeoutMs: 10_000,
      fetch: pool.fetch,
    });
    const failure = await http.request("GET", "/", { schema: z.unknown() }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ failure: "invalid-response" });
    expect(String(failure)).toContain("more than an answer may hold");
  });

  it("is refused by cappedText (an answer of fetch)", async () => {
    const res = await fetch(await serveTooMuch(sized));
    await expect(cappedText(res)).rejects.toMatchObject({ code: "UND_ERR_RES_EXCEEDED_MAX_SIZE" });
  });
});
