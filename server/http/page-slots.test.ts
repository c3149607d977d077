import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPageSlots, PAGE_SLOT_LEASE_MS } from "./page-slots";

/** a response as the slots see it: Node's ServerResponse emits "finish" and "close" the same way */
class Res extends EventEmitter {
  destroyed = false;
  finish() {
    this.emit("finish");
    this.emit("close");
  }
  goAway() {
    this.destroyed = true;
    this.emit("close");
  }
}

/** one turn of the event loop: the slots start at most one page per turn (in its check phase) */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** enough turns for every page that can start to have started */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn();
};

afterEach(() => vi.useRealTimers());

describe("page slots", () => {
  it("starts at most `limit` pages at once and the rest in the order they came", async () => {
    const slots = createPageSlots(2, 1000);
    const started: number[] = [];
    const res = Array.from({ length: 6 }, () => new Res());
    res.forEach((r, i) => slots.admit(r, () => started.push(i)));
    await turns(5);
    expect(started).toEqual([0, 1]);
    expect(slots.stats()).toMatchObject({ busy: 2, waiting: 4, started: 2 });
    res[1].finish();
    await turns(5);
    expect(started).toEqual([0, 1, 2]);
    res[0].finish();
    res[2].finish();
    await turns(5);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    res[3].finish();
    res[4].finish();
    await turns(5);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    res[5].finish();
    expect(slots.stats()).toEqual({ limit: 2, busy: 0, waiting: 0, started: 6, leaseEnded: 0, dropped: 0 });
  });

  it("starts one page per turn of the event loop, never in the call that admits it", async () => {
    const slots = createPageSlots(8, 1000);
    const started: number[] = [];
    const res = Array.from({ length: 3 }, () => new Res());
    res.forEach((r, i) => slots.admit(r, () => started.push(i)));
    // admitted from a socket's read callback: the page waits for the loop's check phase
    expect(started).toEqual([]);
    await turn();
    expect(started).toEqual([0]);
    await turn();
    expect(started).toEqual([0, 1]);
    await turn();
    expect(started).toEqual([0, 1, 2]);
    expect(slots.stats()).toMatchObject({ busy: 3, waiting: 0, started: 3 });
  });

  it("gives a slot back once, whether the response finishes, its connection closes, or both", async () => {
    const slots = createPageSlots(1, 1000);
    const a = new Res();
    const b = new Res();
    const c = new Res();
    const started: string[] = [];
    slots.admit(a, () => started.push("a"));
    slots.admit(b, () => started.push("b"));
    slots.admit(c, () => started.push("c"));
    await turns(3);
    a.finish(); // finish then close: one release, so c still waits for b
    await turns(3);
    expect(started).toEqual(["a", "b"]);
    expect(slots.stats()).toMatchObject({ busy: 1, waiting: 1 });
    b.emit("close"); // the client went while b was answered
    await turns(3);
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("does not start a page whose client went away while it waited", async () => {
    const slots = createPageSlots(1, 1000);
    const a = new Res();
    const gone = new Res();
    const c = new Res();
    const started: string[] = [];
    slots.admit(a, () => started.push("a"));
    slots.admit(gone, () => started.push("gone"));
    slots.admit(c, () => started.push("c"));
    await turns(3);
    gone.goAway();
    a.finish();
    await turns(3);
    expect(started).toEqual(["a", "c"]);
    expect(slots.stats()).toMatchObject({ dropped: 1, busy: 1, waiting: 0 });
  });

  it("lets a page that holds its slot past the lease go on outside the limit", () => {
    vi.useFakeTimers();
    const slots = createPageSlots(1, PAGE_SLOT_LEASE_MS);
    const slow = new Res();
    const next = new Res();
    const started: string[] = [];
    slots.admit(slow, () => started.push("slow"));
    slots.admit(next, () => started.push("next"));
    vi.advanceTimersByTime(0); // the turn that starts the first page
    expect(started).toEqual(["slow"]);
    vi.advanceTimersByTime(PAGE_SLOT_LEASE_MS - 1);
    expect(started).toEqual(["slow"]);
    vi.advanceTimersByTime(1); // the lease ends: the next turn starts the next page
    vi.advanceTimersToNextTimer();
    expect(started).toEqual(["slow", "next"]);
    expect(slots.stats()).toMatchObject({ leaseEnded: 1, busy: 1 });
    // the slow page's own end later gives nothing back a second time
    slow.finish();
    expect(slots.stats()).toMatchObject({ busy: 1 });
    next.finish();
    expect(slots.stats()).toMatchObject({ busy: 0, leaseEnded: 1 });
    vi.advanceTimersByTime(10 * PAGE_SLOT_LEASE_MS);
    expect(slots.stats().leaseEnded).toBe(1);
  });

  it("keeps its slot count when a page throws as it starts", async () => {
    const slots = createPageSlots(1, 1000);
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    slots.admit(new Res(), () => {
      throw new Error("boom");
    });
    const started: string[] = [];
    slots.admit(new Res(), () => started.push("after"));
    await turns(3);
    expect(started).toEqual(["after"]);
    expect(err).toHaveBeenCalledOnce();
    err.mockRestore();
  });

  it("keeps order over a long queue", async () => {
    const slots = createPageSlots(3, 1000);
    const started: number[] = [];
    const res = Array.from({ length: 5000 }, () => new Res());
    res.forEach((r, i) => slots.admit(r, () => started.push(i)));
    for (let i = 0; i < res.length; i++) {
      await turn();
      res[i].finish();
    }
    await turns(3);
    expect(started).toEqual(res.map((_, i) => i));
    expect(slots.stats()).toMatchObject({ busy: 0, waiting: 0, started: 5000 });
  });

  it("refuses a limit below one", () => {
    expect(() => createPageSlots(0, 100)).toThrow(RangeError);
  });
});
