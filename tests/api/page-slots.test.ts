import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-request";
import { startTestServer, type TestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * Pages and their .data requests are answered a few at a time, shared fairly between callers
 * (server/http/turns.ts), on the real server. The lease is set to a minute
 * here, so a slot that its response did not give back would show (busy after the answer, and the
 * next page waiting for a minute) instead of being hidden by the lease's end.
 */

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer({ PAGE_CONCURRENCY: "2" }, { start: { pageSlotLeaseMs: 60_000 } });
  cookie = (await signIn(server.url, "researcher")).cookie;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** one GET over `agent` (keep-alive), the whole body read */
const get = (agent: http.Agent, url: string, signal?: AbortSignal) =>
  rawRequest(server.url, url, { agent, signal, headers: { cookie, accept: "text/html" } }).then((a) => ({
    status: a.status,
    body: a.text,
  }));

describe("page slots", () => {
  it("gives each slot back when its page is answered, over one keep-alive connection", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = server.pageSlots()!;
      const paths = ["/catalogue", "/analytics", "/graph", "/", "/catalogue.data", "/no-such-page"];
      for (let round = 0; round < 3; round++)
        for (const p of paths) {
          const r = await get(agent, p);
          expect([200, 404]).toContain(r.status);
          expect(server.pageSlots()).toMatchObject({ busy: 0, waiting: 0, leaseEnded: 0 });
        }
      expect(server.pageSlots()!.started - before.started).toBe(3 * paths.length);
    } finally {
      agent.destroy();
    }
  });

  it("answers a burst of pages two at a time, every one of them", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 12 });
    const seen: number[] = [];
    const watch = setInterval(() => seen.push(server.pageSlots()!.busy), 1);
    try {
      const before = server.pageSlots()!;
      const paths = Array.from(
        { length: 36 },
        (_, i) => ["/catalogue", "/analytics", "/", "/catalogue.data"][i % 4],
      );
      const answers = await Promise.all(paths.map((p) => get(agent, p)));
      for (const a of answers) expect(a.status).toBe(200);
      expect(
        answers.filter((a, i) => paths[i] === "/catalogue").every((a) => a.body.includes("catalogue-page")),
      ).toBe(true);
      const after = server.pageSlots()!;
      expect(after).toMatchObject({ limit: 2, busy: 0, waiting: 0, leaseEnded: 0 });
      expect(after.started - before.started).toBe(36);
      expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    } finally {
      clearInterval(watch);
      agent.destroy();
    }
  });

  it("starts pages one per turn of the event loop, so the loop turns between pages under a burst", async () => {
    // libuv accepts one new connection per turn: were a turn to answer every page read in it, a client
    // connecting under load would wait for the whole burst before it is even accepted (decision 0033).
    // Sampled once per turn (check phase): between two samples lie at most the end of one check phase
    // and the start of the next, so at most two starts; answering pages from the read callbacks started
    // many more in one turn.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
    const perTurn: number[] = [];
    let last = server.pageSlots()!.started;
    let sampling = true;
    const sample = () => {
      const now = server.pageSlots()!.started;
      perTurn.push(now - last);
      last = now;
      if (sampling) setImmediate(sample);
    };
    setImmediate(sample);
    try {
      const before = server.pageSlots()!.started;
      const answers = await Promise.all(
        Array.from({ length: 48 }, (_, i) => get(agent, i % 2 ? "/catalogue" : "/catalogue.data")),
      );
      sampling = false;
      sample(); // the starts since the last turn's sample
      for (const a of answers) expect(a.status).toBe(200);
      expect(server.pageSlots()!.started - before).toBe(48);
      expect(perTurn.reduce((a, b) => a + b, 0)).toBe(48);
      expect(Math.max(...perTurn)).toBeLessThanOrEqual(2);
    } finally {
      sampling = false;
      agent.destroy();
    }
  });

  it("leaks no slot when clients go away while their pages wait or are answered", async () => {
    const agent = new http.Agent({ keepAlive: false, maxSockets: 24 });
    try {
      const before = server.pageSlots()!;
      const aborts = Array.from({ length: 24 }, () => new AbortController());
      const all = aborts.map((a, i) =>
        get(agent, i % 2 ? "/analytics" : "/catalogue", a.signal).catch(() => null),
      );
      // half of them go away at once: some before their page starts, some while it is answered
      setTimeout(() => aborts.forEach((a, i) => i % 2 === 0 && a.abort()), 5);
      const answers = await Promise.all(all);
      const kept = answers.filter((a, i) => i % 2 === 1);
      for (const a of kept) expect(a?.status).toBe(200);
      // the server sees the closed connections a moment after the client does
      for (let i = 0; i < 100 && server.pageSlots()!.busy + server.pageSlots()!.waiting > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      const after = server.pageSlots()!;
      expect(after).toMatchObject({ busy: 0, waiting: 0, leaseEnded: 0 });
      // a request that went before the server read it is neither started nor dropped
      const seenByServer = after.started - before.started + (after.dropped - before.dropped);
      expect(seenByServer).toBeGreaterThanOrEqual(12);
      expect(seenByServer).toBeLessThanOrEqual(24);
      // and the slots still serve
      const again = await get(new http.Agent({ keepAlive: false }), "/catalogue");
      expect(again.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("shares the slots between users: one user's forty heavy pages do not make another's page wait behind them", async () => {
    const patient = (await signIn(server.url, "patient1")).cookie;
    const heavyAgent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    const otherAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const other = { agent: otherAgent, headers: { cookie: patient, accept: "text/html" } };
    try {
      // forty open connections for the heavy user and one for the other, so that a burst is read at once
      await Promise.all(Array.from({ length: 40 }, () => get(heavyAgent, "/graph")));
      expect((await rawRequest(server.url, "/my-record", other)).status).toBe(200);
      const order: string[] = [];
      const before = server.pageSlots()!.started;
      const heavy = Array.from({ length: 40 }, () =>
        get(heavyAgent, "/graph").then((a) => (order.push("heavy"), a)),
      );
      // the heavy pages have been read by the server and wait for their slots
      for (let i = 0; i < 2000 && server.pageSlots()!.waiting < 20; i++)
        await new Promise((r) => setTimeout(r, 1));
      expect(server.pageSlots()!.waiting).toBeGreaterThanOrEqual(20);
      const mine = rawRequest(server.url, "/my-record", other).then((a) => (order.push("other"), a));
      const [answers, own] = await Promise.all([Promise.all(heavy), mine]);
      for (const a of answers) expect(a.status).toBe(200);
      expect(own.status).toBe(200);
      expect(server.pageSlots()!.started - before).toBe(41);
      // first come first served answered it after the twenty or more heavy pages that waited before it
      expect(order.indexOf("other")).toBeLessThan(10);
    } finally {
      heavyAgent.destroy();
      otherAgent.destroy();
    }
  });

  it("leaves no timer behind an answered page (Remix's hand-off time-out is cleared with the request's signal)", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    try {
      expect((await get(agent, "/catalogue")).status).toBe(200);
      const before = timers();
      for (let i = 0; i < 10; i++) expect((await get(agent, "/catalogue")).status).toBe(200);
      // each page used to leave a 4.95 s timer (encodeViaTurboStream's) running after its answer
      expect(timers() - before).toBeLessThan(3);
    } finally {
      agent.destroy();
    }
  });
});
