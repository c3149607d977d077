import { afterEach, describe, expect, it, vi } from "vitest";
import { createReadCache } from "./read-cache";
import { callDeadline } from "./upstream-http";

/** One upstream call's deadline (upstream-http.ts): bounded, follows its caller, and gone when the call ends. */
describe("callDeadline", () => {
  afterEach(() => void vi.useRealTimers());

  it("aborts with a TimeoutError after its time-out", () => {
    vi.useFakeTimers();
    const d = callDeadline(500);
    vi.advanceTimersByTime(499);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("aborts with its caller's reason, at once when the caller gave up already", () => {
    const caller = new AbortController();
    const d = callDeadline(10_000, caller.signal);
    caller.abort(new Error("caller gave up"));
    expect((d.signal.reason as Error).message).toBe("caller gave up");
    d.clear();
    expect((callDeadline(10_000, caller.signal).signal.reason as Error).message).toBe("caller gave up");
  });

  it("leaves no timer and no listener on its caller once cleared", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const remove = vi.spyOn(caller.signal, "removeEventListener");
    const d = callDeadline(10_000, caller.signal);
    expect(vi.getTimerCount()).toBe(1);
    d.clear();
    expect(vi.getTimerCount()).toBe(0);
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function));
    vi.advanceTimersByTime(20_000);
    expect(d.signal.aborted).toBe(false);
  });

  it("is what a shared read of the read cache runs under, and it goes when the read settles", async () => {
    vi.useFakeTimers();
    const cache = createReadCache({ name: "connector", ttlMs: 0, timeoutMs: 10_000 });
    let seen: AbortSignal | undefined;
    await cache.share("k", undefined, async (signal) => {
      seen = signal;
      return [1];
    });
    expect(seen?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    await expect(cache.share("k", undefined, () => Promise.reject(new Error("down")))).rejects.toThrow(
      "down",
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it("is cleared when a read's loader throws at once", async () => {
    vi.useFakeTimers();
    const cache = createReadCache({ name: "connector", ttlMs: 0, timeoutMs: 10_000 });
    expect(() =>
      cache.share("k", undefined, () => {
        throw new Error("no such read");
      }),
    ).toThrow("no such read");
    expect(vi.getTimerCount()).toBe(0);
  });
});
