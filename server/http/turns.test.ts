import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { API_STARTS_PER_TURN, createTurns, PAGE_SLOT_LEASE_MS } from "./turns";

/** a response as the turns see it: Node's ServerResponse emits "finish" and "close" the same way */
class Res extends EventEmitter {
  destroyed = false;
  req = { method: "GET" };
  finish() {
    this.emit("finish");
    this.emit("close");
  }
  goAway() {
    this.destroyed = true;
    this.emit("close");
  }
}

/** one turn of the event loop (its check phase) */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const nextImmediate = turn;
/** enough turns for every page that can start to have started */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn();
};

afterEach(() => vi.useRealTimers());

const open = new Res();

describe("the turns of /api requests", () => {
  it("starts nothing from the callback that queued it, then at most perTurn a turn, in the order they came", async () => {
    const turns = createTurns({ apiPerTurn: 3 });
    const order: number[] = [];
    for (let i = 0; i < 8; i++) turns.api(open, () => order.push(i));
    expect(order).toEqual([]);
    expect(turns.apiStats()).toEqual({ waiting: 8, started: 0, dropped: 0 });

    const perTurn: number[] = [];
    while (turns.apiStats().waiting) {
      const before = order.length;
      await nextImmediate();
      perTurn.push(order.length - before);
    }
    expect(perTurn).toEqual([3, 3, 2]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(turns.apiStats()).toEqual({ waiting: 0, started: 8, dropped: 0 });
  });

  it("lets the loop's other phases run between two turns", async () => {
    const turns = createTurns({ apiPerTurn: 2 });
    const events: string[] = [];
    // each start takes 2 ms, so a timer set by the first one is due once its turn is over
    const busy = () => {
      const until = performance.now() + 2;
      while (performance.now() < until);
    };
    for (let i = 0; i < 6; i++)
      turns.api(open, () => {
        if (i === 0) setTimeout(() => events.push("timer"), 1);
        busy();
        events.push(`api ${i}`);
      });
    while (turns.apiStats().waiting) await nextImmediate();
    await nextImmediate();
    // the timers phase of the next turn comes before its check phase: between the first two batches
    expect(events).toEqual(["api 0", "api 1", "timer", "api 2", "api 3", "api 4", "api 5"]);
  });

  it("drops a GET or HEAD whose client went away while it waited, never a request with a body", async () => {
    const turns = createTurns({ apiPerTurn: 4 });
    const gone = Object.assign(new Res(), { destroyed: true });
    const gonePost = Object.assign(new Res(), { destroyed: true, req: { method: "POST" } });
    const started: string[] = [];
    turns.api(gone, () => started.push("gone GET"));
    turns.api(gonePost, () => started.push("gone POST"));
    turns.api(open, () => started.push("GET"));
    await nextImmediate();
    expect(started).toEqual(["gone POST", "GET"]);
    expect(turns.apiStats()).toEqual({ waiting: 0, started: 2, dropped: 1 });
  });

  it("writes every waiting answer first, in the same turn and before the API requests of that turn", async () => {
    const turns = createTurns({ apiPerTurn: 2 });
    const events: string[] = [];
    for (let i = 0; i < 3; i++) turns.api(open, () => events.push(`api ${i}`));
    for (let i = 0; i < 20; i++) turns.first(() => events.push(`health ${i}`));
    expect(events).toEqual([]);
    await nextImmediate();
    expect(events).toEqual([...Array.from({ length: 20 }, (_, i) => `health ${i}`), "api 0", "api 1"]);
    turns.first(() => events.push("health 20"));
    await nextImmediate();
    expect(events.slice(22)).toEqual(["health 20", "api 2"]);
  });

  it("starts a page after the answers and before the API requests of a turn, one page per turn", async () => {
    const turns = createTurns({ apiPerTurn: 1, pageLimit: 8 });
    const events: string[] = [];
    turns.api(open, () => events.push("api 0"));
    turns.api(open, () => events.push("api 1"));
    turns.page(new Res(), "u", () => events.push("page 0"));
    turns.page(new Res(), "u", () => events.push("page 1"));
    turns.first(() => events.push("health"));
    await nextImmediate();
    expect(events).toEqual(["health", "page 0", "api 0"]);
    await nextImmediate();
    expect(events).toEqual(["health", "page 0", "api 0", "page 1", "api 1"]);
  });

  it("goes on after a start or an answer that throws", async () => {
    const turns = createTurns({ apiPerTurn: 4 });
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const started: number[] = [];
    turns.api(open, () => {
      throw new Error("boom");
    });
    turns.api(open, () => started.push(2));
    turns.first(() => {
      throw new Error("bang");
    });
    turns.first(() => started.push(1));
    await nextImmediate();
    expect(started).toEqual([1, 2]);
    expect(error).toHaveBeenCalledWith("[api] could not start a request:", expect.any(Error));
    expect(error).toHaveBeenCalledWith("[api] could not answer:", expect.any(Error));
    error.mockRestore();
  });

  it("queues again after it has run dry, and refuses a limit under one", async () => {
    const turns = createTurns();
    const started: number[] = [];
    turns.api(open, () => started.push(1));
    await nextImmediate();
    turns.api(open, () => started.push(2));
    await nextImmediate();
    expect(started).toEqual([1, 2]);
    expect(API_STARTS_PER_TURN).toBeGreaterThan(1);
    expect(() => createTurns({ apiPerTurn: 0 })).toThrow(RangeError);
  });
});

describe("page slots", () => {
  it("starts at most `limit` pages at once and the rest in the order they came", async () => {
    const slots = createTurns({ pageLimit: 2, leaseMs: 1000 });
    const started: number[] = [];
    const res = Array.from({ length: 6 }, () => new Res());
    res.forEach((r, i) => slots.page(r, "u", () => started.push(i)));
    await turns(5);
    expect(started).toEqual([0, 1]);
    expect(slots.pageStats()).toMatchObject({ busy: 2, waiting: 4, started: 2 });
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
    expect(slots.pageStats()).toEqual({
      limit: 2,
      busy: 0,
      waiting: 0,
      callers: 0,
      started: 6,
      leaseEnded: 0,
      dropped: 0,
    });
  });

  it("starts one page per turn of the event loop, never in the call that admits it", async () => {
    const slots = createTurns({ pageLimit: 8, leaseMs: 1000 });
    const started: number[] = [];
    const res = Array.from({ length: 3 }, () => new Res());
    res.forEach((r, i) => slots.page(r, "u", () => started.push(i)));
    // admitted from a socket's read callback: the page waits for the loop's check phase
    expect(started).toEqual([]);
    await turn();
    expect(started).toEqual([0]);
    await turn();
    expect(started).toEqual([0, 1]);
    await turn();
    expect(started).toEqual([0, 1, 2]);
    expect(slots.pageStats()).toMatchObject({ busy: 3, waiting: 0, started: 3 });
  });

  it("gives a slot back once, whether the response finishes, its connection closes, or both", async () => {
    const slots = createTurns({ pageLimit: 1, leaseMs: 1000 });
    const a = new Res();
    const b = new Res();
    const c = new Res();
    const started: string[] = [];
    slots.page(a, "u", () => started.push("a"));
    slots.page(b, "u", () => started.push("b"));
    slots.page(c, "u", () => started.push("c"));
    await turns(3);
    a.finish(); // finish then close: one release, so c still waits for b
    await turns(3);
    expect(started).toEqual(["a", "b"]);
    expect(slots.pageStats()).toMatchObject({ busy: 1, waiting: 1 });
    b.emit("close"); // the client went while b was answered
    await turns(3);
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("does not start a page whose client went away while it waited", async () => {
    const slots = createTurns({ pageLimit: 1, leaseMs: 1000 });
    const a = new Res();
    const gone = new Res();
    const c = new Res();
    const started: string[] = [];
    slots.page(a, "u", () => started.push("a"));
    slots.page(gone, "u", () => started.push("gone"));
    slots.page(c, "u", () => started.push("c"));
    await turns(3);
    gone.goAway();
    a.finish();
    await turns(3);
    expect(started).toEqual(["a", "c"]);
    expect(slots.pageStats()).toMatchObject({ dropped: 1, busy: 1, waiting: 0 });
  });

  it("lets a page that holds its slot past the lease go on outside the limit", () => {
    vi.useFakeTimers();
    const slots = createTurns({ pageLimit: 1, leaseMs: PAGE_SLOT_LEASE_MS });
    const slow = new Res();
    const next = new Res();
    const started: string[] = [];
    slots.page(slow, "u", () => started.push("slow"));
    slots.page(next, "u", () => started.push("next"));
    vi.advanceTimersByTime(0); // the turn that starts the first page
    expect(started).toEqual(["slow"]);
    vi.advanceTimersByTime(PAGE_SLOT_LEASE_MS - 1);
    expect(started).toEqual(["slow"]);
    vi.advanceTimersByTime(1); // the lease ends: the next turn starts the next page
    vi.advanceTimersToNextTimer();
    expect(started).toEqual(["slow", "next"]);
    expect(slots.pageStats()).toMatchObject({ leaseEnded: 1, busy: 1 });
    // the slow page's own end later gives nothing back a second time
    slow.finish();
    expect(slots.pageStats()).toMatchObject({ busy: 1 });
    next.finish();
    expect(slots.pageStats()).toMatchObject({ busy: 0, leaseEnded: 1 });
    vi.advanceTimersByTime(10 * PAGE_SLOT_LEASE_MS);
    expect(slots.pageStats().leaseEnded).toBe(1);
  });

  it("keeps its slot count when a page throws as it starts", async () => {
    const slots = createTurns({ pageLimit: 1, leaseMs: 1000 });
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    slots.page(new Res(), "u", () => {
      throw new Error("boom");
    });
    const started: string[] = [];
    slots.page(new Res(), "u", () => started.push("after"));
    await turns(3);
    expect(started).toEqual(["after"]);
    expect(err).toHaveBeenCalledOnce();
    err.mockRestore();
  });

  it("keeps order over a long queue", async () => {
    const slots = createTurns({ pageLimit: 3, leaseMs: 1000 });
    const started: number[] = [];
    const res = Array.from({ length: 5000 }, () => new Res());
    res.forEach((r, i) => slots.page(r, "u", () => started.push(i)));
    for (let i = 0; i < res.length; i++) {
      await turn();
      res[i].finish();
    }
    await turns(3);
    expect(started).toEqual(res.map((_, i) => i));
    expect(slots.pageStats()).toMatchObject({ busy: 0, waiting: 0, started: 5000 });
  });

  it("refuses a negative limit", () => {
    expect(() => createTurns({ pageLimit: -1, leaseMs: 100 })).toThrow(RangeError);
  });
});

describe("page slots shared between callers", () => {
  it("gives a free slot to each waiting caller in turn: one caller's forty pages do not hold another's up", async () => {
    const slots = createTurns({ pageLimit: 2, leaseMs: 60_000 });
    const started: string[] = [];
    const heavy = Array.from({ length: 40 }, () => new Res());
    heavy.forEach((r, i) => slots.page(r, "heavy user", () => started.push(`heavy ${i}`)));
    await turns(3);
    expect(started).toEqual(["heavy 0", "heavy 1"]);
    const other = new Res();
    slots.page(other, "other user", () => started.push("other"));
    expect(slots.pageStats()).toMatchObject({ waiting: 39, callers: 2 });
    heavy[0].finish();
    await turns(3);
    heavy[1].finish();
    await turns(3);
    // first come first served would have started it after the 38 pages that came before it
    expect(started.indexOf("other")).toBeLessThanOrEqual(3);
    expect(started).toContain("other");
  });

  it("keeps each caller's own pages in the order they came and serves the callers in turn", async () => {
    const slots = createTurns({ pageLimit: 1, leaseMs: 60_000 });
    const started: string[] = [];
    const res: Res[] = [];
    for (const [who, n] of [
      ["a", 3],
      ["b", 2],
      ["c", 1],
    ] as const)
      for (let i = 0; i < n; i++) {
        const r = new Res();
        res.push(r);
        slots.page(r, who, () => started.push(`${who}${i}`));
      }
    for (let i = 0; i < 6; i++) {
      await turns(2);
      // the one page started and not yet finished
      res.find((r) => r.listenerCount("finish") > 0)?.finish();
    }
    await turns(3);
    expect(started).toEqual(["a0", "b0", "c0", "a1", "b1", "a2"]);
    expect(slots.pageStats()).toMatchObject({ waiting: 0, callers: 0, started: 6 });
  });

  it("starts a page at once without a limit", () => {
    const slots = createTurns({ pageLimit: 0 });
    const started: string[] = [];
    slots.page(new Res(), "u", () => started.push("now"));
    expect(started).toEqual(["now"]);
  });
});
