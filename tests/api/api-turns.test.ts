import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * /api requests are started a few per turn of the event loop (server/http/api-turns.ts,
 * docs/decisions/0040), on the real server over real sockets: a health probe read in the same poll
 * phase as a burst of API requests is answered while most of them still wait for their turn, and
 * every one of them is answered afterwards, exactly as one alone would be.
 */

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer();
  cookie = (await signIn(server.url, "admin")).cookie;
  // a first probe result, so that health is answered by the listener itself
  expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/**
 * A keep-alive connection the server has accepted and answered once (libuv accepts a connection per
 * turn of the loop: a socket only connected might not be read in the same poll phase as the others).
 */
async function connect(): Promise<net.Socket> {
  const { hostname, port } = new URL(server.url);
  const s = await new Promise<net.Socket>((resolve, reject) => {
    const c = net.connect(Number(port), hostname, () => resolve(c));
    c.once("error", reject);
  });
  await new Promise<void>((resolve, reject) => {
    let text = "";
    const onData = (c: Buffer) => {
      text += c.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) {
        s.off("data", onData);
        resolve();
      }
    };
    s.on("data", onData);
    s.once("error", reject);
    s.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  });
  return s;
}

/** the whole answer of a `Connection: close` request: status and body */
function answerOf(s: net.Socket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let text = "";
    s.setEncoding("utf8");
    s.on("data", (c: string) => (text += c));
    s.on("end", () => {
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      resolve({ status: Number(head.split(" ")[1]), body: text.slice(head.length + 4) });
    });
    s.on("error", reject);
  });
}

const request = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;

describe("api turns", () => {
  it("answers health while a burst of API requests waits for its turn, then answers all of them", async () => {
    const alone = await fetch(`${server.url}/api/tasks`, { headers: { cookie, accept: "application/json" } });
    expect(alone.status).toBe(200);
    const expected = await alone.text();

    const burst = 40;
    const sockets = await Promise.all(Array.from({ length: burst + 1 }, connect));
    const [probe, ...apis] = [sockets[burst], ...sockets.slice(0, burst)];
    const before = server.apiTurns();
    let atHealth: ReturnType<TestServer["apiTurns"]> | undefined;
    probe.once("data", () => (atHealth = server.apiTurns()));
    const answers = apis.map(answerOf);
    const health = answerOf(probe);
    // every request written before the server's loop runs again: one poll phase reads them all
    for (const s of apis) s.write(request("/api/tasks"));
    probe.write(request("/api/health"));

    expect((await health).status).toBe(200);
    expect(atHealth).toBeDefined();
    expect(atHealth!.started - before.started).toBeLessThan(burst);
    expect(atHealth!.waiting).toBeGreaterThan(0);

    for (const a of await Promise.all(answers)) {
      expect(a.status).toBe(200);
      expect(a.body).toBe(expected);
    }
    const after = server.apiTurns();
    expect(after.started - before.started).toBe(burst);
    expect(after.waiting).toBe(0);
    expect(after.dropped).toBe(before.dropped);
  });

  it("does not start a GET whose client left while it waited", async () => {
    const burst = 30;
    const sockets = await Promise.all(Array.from({ length: burst }, connect));
    const before = server.apiTurns();
    const closed = sockets.map((s) => new Promise((r) => s.once("close", r)));
    for (const s of sockets) {
      s.on("error", () => {});
      s.write(request("/api/tasks"));
    }
    // the last ones leave at once: by the time their turn comes, their responses are destroyed
    for (const s of sockets.slice(-10)) s.destroy();
    for (const s of sockets.slice(0, -10)) s.resume();
    await Promise.all(closed);
    await new Promise((r) => setTimeout(r, 50));
    const after = server.apiTurns();
    expect(after.waiting).toBe(0);
    expect(after.started - before.started + (after.dropped - before.dropped)).toBe(burst);
    expect(after.dropped - before.dropped).toBeGreaterThan(0);
  });
});
