import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealthMonitor } from "../../server/health/monitor";
import { startTestServer, type TestServer } from "../support/server";

/**
 * GET /api/health answers from probes that run in the background (server/health/monitor.ts): the
 * route waits for no probe, says how old its answer is, never runs two probes at once, and stops
 * probing when nobody asks.
 */

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the health monitor", () => {
  it("answers the last result without waiting for a probe, and probes on its interval", async () => {
    let probes = 0;
    const monitor = createHealthMonitor({
      probe: async () => ({ n: ++probes }),
      failed: () => ({ n: -1 }),
      intervalMs: 50,
    });
    const first = await monitor.read(); // nothing yet: waits for one probe
    expect(first.health.n).toBe(1);
    const again = await monitor.read();
    expect(again.health.n).toBe(1);
    expect(probes).toBe(1);
    await wait(180);
    const later = await monitor.read();
    expect(later.health.n).toBeGreaterThanOrEqual(2);
    expect(later.ageMs).toBeLessThan(100);
    monitor.stop();
  });

  it("never runs two probes at once, however slow the probe", async () => {
    let running = 0;
    let most = 0;
    const monitor = createHealthMonitor({
      probe: async () => {
        most = Math.max(most, ++running);
        await wait(120);
        running--;
        return "ok";
      },
      failed: () => "down",
      intervalMs: 20,
    });
    await Promise.all(Array.from({ length: 20 }, () => monitor.read()));
    await wait(300);
    expect(most).toBe(1);
    monitor.stop();
  });

  it("records a probe that throws as the failed result, and stops when nobody asks", async () => {
    let t = 0;
    let probes = 0;
    const monitor = createHealthMonitor<string>({
      probe: async () => {
        probes++;
        throw new Error("boom");
      },
      failed: () => "down",
      intervalMs: 20,
      idleStopMs: 60,
      now: () => t,
    });
    t = 1;
    expect((await monitor.read()).health).toBe("down");
    await wait(80);
    expect(probes).toBeGreaterThan(1); // probing on its interval
    t = 1000; // a second later with no read in between
    await wait(80);
    const stopped = probes;
    await wait(80);
    expect(probes).toBe(stopped);
  });

  it("after invalidate(), answers only a probe started after it (not the one in flight)", async () => {
    let probes = 0;
    let release = () => {};
    const monitor = createHealthMonitor({
      probe: async () => {
        const n = ++probes;
        if (n === 2) await new Promise<void>((r) => (release = r)); // in flight when invalidated
        return n;
      },
      failed: () => -1,
      intervalMs: 60_000,
    });
    expect((await monitor.read()).health).toBe(1);
    expect((await monitor.read()).health).toBe(1); // kept
    monitor.invalidate();
    const waiting = monitor.read(); // starts probe 2, which hangs
    await wait(10);
    monitor.invalidate(); // the thing changed again while probe 2 runs
    release();
    expect((await waiting).health).toBe(3);
    expect(monitor.peek()?.health).toBe(3);
    monitor.stop();
  });
});

describe("GET /api/health on the real server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it("answers the background result with its age, without a session", async () => {
    // the first probes of a server just started may time out on a loaded machine (health then says
    // so: degraded, idp false; seen at load 24): the answer looked at is the first "ok" one, within 20 s
    const read = async () => {
      const res = await fetch(`${server.url}/api/health`);
      return { status: res.status, body: await res.json() };
    };
    let first = await read();
    for (const until = Date.now() + 20_000; first.body.status !== "ok" && Date.now() < until;) {
      await wait(250);
      first = await read();
    }
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: "ok", graphdb: true, idp: true, timestamp: expect.any(String) });
    const again = await fetch(`${server.url}/api/health`);
    const ageMs = Number(again.headers.get("x-health-age-ms"));
    expect(Number.isInteger(ageMs) && ageMs >= 0 && ageMs < 5000).toBe(true);
    expect(again.headers.get("age")).toBe(String(Math.floor(ageMs / 1000)));
    const probedAt = Date.parse((await again.json()).timestamp);
    // the timestamp is when the answered probe ran: the age is measured from it
    expect(Math.abs(Date.now() - ageMs - probedAt)).toBeLessThan(1000);
  });

  it("answers from the listener's pre-encoded bytes exactly as the dispatcher's route does", async () => {
    await fetch(`${server.url}/api/health`); // a fresh probe result exists from here on
    // `/api/health` is answered first thing in the Node listener; with a query string it takes the
    // dispatcher's route (route table, session lookup, handler): both must agree byte for byte
    // identity: the dispatcher's answers are compressed at the edge for a client that accepts it
    // (tests/api/compression.test.ts); the listener's fast path answers the bytes as they are
    const identity = { headers: { "accept-encoding": "identity" } };
    // a pair answered from the same probe: a background probe that lands between the two answers moves the
    // timestamp (seen in CI under load), so such a pair is asked again; bytes that differ otherwise fail below
    const pair = async () => {
      const fast = await fetch(`${server.url}/api/health`, identity);
      const routed = await fetch(`${server.url}/api/health?via=dispatcher`, identity);
      const [a, b] = [await fast.clone().text(), await routed.clone().text()];
      return { fast, routed, a, b, same: JSON.parse(a).timestamp === JSON.parse(b).timestamp };
    };
    let p = await pair();
    for (let i = 0; i < 10 && !p.same; i++) p = await pair();
    expect(p.same, "ten pairs in a row straddled a background probe").toBe(true);
    const { fast, routed } = p;
    expect(fast.status).toBe(routed.status);
    const headersOf = (r: Response) =>
      Object.fromEntries(
        [...r.headers].filter(
          // vary: Accept-Encoding is the compression middleware's, on the dispatcher's answers only
          ([k]) => !["date", "age", "x-health-age-ms", "keep-alive", "vary"].includes(k),
        ),
      );
    expect(headersOf(fast)).toEqual(headersOf(routed));
    expect(fast.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(fast.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Number(fast.headers.get("x-health-age-ms"))).toBeGreaterThanOrEqual(0);
    expect(p.a).toBe(p.b); // the same probe result, encoded the same way
    // a HEAD and a foreign method still go through the dispatcher
    expect((await fetch(`${server.url}/api/health`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${server.url}/api/health`, { method: "DELETE" })).status).toBe(405);
  });
});
