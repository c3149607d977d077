import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ANSWERED, exchangeSignal } from "./exchange-signal";

/**
 * One real exchange with a server on 127.0.0.1 whose handler takes the exchange's signal, registers a
 * listener on it (as Remix and undici do) and answers, or not: `answer` false leaves the request
 * hanging until the client goes.
 */
async function exchange(answer: boolean) {
  const seen: unknown[] = [];
  let signal!: AbortSignal;
  let closed!: () => void;
  const ended = new Promise<void>((r) => (closed = r));
  const server = http.createServer((req, res) => {
    signal = exchangeSignal(res);
    signal.addEventListener("abort", () => seen.push(signal.reason));
    signal.addEventListener("abort", () => seen.push("second"), { once: true });
    expect(getEventListeners(signal, "abort")).toHaveLength(2);
    res.on("close", () => setImmediate(closed));
    if (answer) res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const client = new AbortController();
  try {
    const asked = fetch(`http://127.0.0.1:${port}/`, { signal: client.signal }).then((r) => r.text());
    if (answer) expect(await asked).toBe("ok");
    else {
      await new Promise((r) => setTimeout(r, 50));
      client.abort();
      await asked.catch(() => undefined);
    }
    await ended;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  return { signal, seen };
}

describe("a page exchange's signal (exchangeSignal)", () => {
  it("is aborted with ANSWERED once the answer is written, and then holds no listener", async () => {
    const { signal, seen } = await exchange(true);
    expect([signal.aborted, signal.reason]).toEqual([true, ANSWERED]);
    expect(seen).toEqual([ANSWERED, "second"]);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("is aborted without that reason when the client goes first, and then holds no listener", async () => {
    const { signal, seen } = await exchange(false);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe("AbortError");
    expect(seen).toEqual([signal.reason, "second"]);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("does not keep a listener given after the end (it would never be called)", async () => {
    const { signal } = await exchange(true);
    let called = false;
    signal.addEventListener("abort", () => (called = true));
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    expect(called).toBe(false);
  });
});
