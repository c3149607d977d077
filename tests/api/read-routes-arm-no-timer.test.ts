import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { askApi, fillPath, findIds, placeholdersOf } from "../../scripts/bench/ids";
import { pathFor, ROUTES as BENCH_ROUTES } from "../../scripts/bench/routes";
import { startTestServer, type TestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * A read answered from what the hub keeps arms no time-out timer. `AbortSignal.timeout(ms)` lives as
 * long as its time-out whether or not the request that armed it has ended: one per request at tens of
 * thousands of requests a second filled the old space, and its major collections (120–150 ms) were
 * the p99 of `/api/participants/me` and `/api/admin/tenants` in the bench (decision 0042, point 8).
 * Each of the bench's `/api` read routes and pages is read twice, then once more while
 * `AbortSignal.timeout` is watched on this thread; the timers armed during that read are named with
 * where they were armed.
 */

/** routes that go upstream on every read by design, and so arm the upstream call's own time-out */
const LIVE_EVERY_TIME = new Set([
  // the provider issues fresh offer ids on each request (decision 0042, point 3)
  "provider catalogue",
]);
/** work this server does in the background on its own clock, not for the read being watched */
const BACKGROUND = /operator\/component-probes|health\/monitor/;
/**
 * An upstream call's own time-out, armed where the call is made: once per call, shared by every
 * reader of its answer (a kept answer that expired between two reads of a loaded machine is fetched
 * again). What must not happen is a timer armed for the request itself.
 */
const UPSTREAM_CALL = /dataspace\/(read-cache|upstream-http|oauth-token)\.ts/;

let server: TestServer;
const cookies = new Map<string, string>();
const cookieOf = async (persona: string) => {
  if (!cookies.has(persona)) cookies.set(persona, (await signIn(server.url, persona)).cookie);
  return cookies.get(persona)!;
};

const routes = BENCH_ROUTES.filter((r) => r.kind !== "latency" && !LIVE_EVERY_TIME.has(r.name));

beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server?.close());

describe("reads answered from what is kept", () => {
  it("arm no AbortSignal.timeout on the server's thread", async () => {
    const wanted = new Set(routes.flatMap((r) => placeholdersOf(pathFor(r, 40))));
    const ids = await findIds(wanted, async (who, p, init) =>
      askApi(server.url, p, { ...init, cookie: await cookieOf(who) }),
    );
    const read = async (persona: string, path: string) => {
      const res = await fetch(server.url + path, {
        headers: {
          cookie: await cookieOf(persona),
          accept: path.startsWith("/api") ? "application/json" : "text/html",
        },
      });
      await res.arrayBuffer();
      return res.status;
    };

    const armed: string[] = [];
    const timeout = AbortSignal.timeout.bind(AbortSignal);
    const spy = vi.spyOn(AbortSignal, "timeout");
    try {
      for (const r of routes) {
        const path = fillPath(pathFor(r, 40), ids);
        spy.mockImplementation(timeout);
        expect(await read(r.persona, path), `${r.name} ${path}`).toBeLessThan(500);
        expect(await read(r.persona, path), `${r.name} ${path}`).toBeLessThan(500);
        spy.mockImplementation((ms: number) => {
          // the frames from the caller of AbortSignal.timeout on (the spy's own left out)
          const frames = (new Error().stack ?? "")
            .split("\n")
            .slice(2)
            .filter((f) => !f.includes("node_modules/@vitest/"))
            .slice(0, 7);
          const where = frames.join("\n");
          if (!BACKGROUND.test(where) && !UPSTREAM_CALL.test(frames[0] ?? ""))
            armed.push(`${r.name} (${path}):\n${where}`);
          return timeout(ms);
        });
        await read(r.persona, path);
      }
    } finally {
      spy.mockRestore();
    }
    expect(armed).toEqual([]);
  }, 120_000);
});
