import { API_STARTS_PER_TURN, createApiTurns } from "./api-turns";

/** resolves in the check phase after every immediate queued before it */
const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));

const open = { destroyed: false, req: { method: "GET" } };

describe("api turns", () => {
  it("starts nothing from the callback that queued it, then at most perTurn a turn, in the order they came", async () => {
    const turns = createApiTurns(3);
    const order: number[] = [];
    for (let i = 0; i < 8; i++) turns.enqueue(open, () => order.push(i));
    expect(order).toEqual([]);
    expect(turns.stats()).toEqual({ waiting: 8, started: 0, dropped: 0 });

    const perTurn: number[] = [];
    while (turns.stats().waiting) {
      const before = order.length;
      await nextImmediate();
      perTurn.push(order.length - before);
    }
    expect(perTurn).toEqual([3, 3, 2]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(turns.stats()).toEqual({ waiting: 0, started: 8, dropped: 0 });
  });

  it("lets the loop's other phases run between two turns", async () => {
    const turns = createApiTurns(2);
    const events: string[] = [];
    // each start takes 2 ms, so a timer set by the first one is due once its turn is over
    const busy = () => {
      const until = performance.now() + 2;
      while (performance.now() < until);
    };
    for (let i = 0; i < 6; i++)
      turns.enqueue(open, () => {
        if (i === 0) setTimeout(() => events.push("timer"), 1);
        busy();
        events.push(`api ${i}`);
      });
    while (turns.stats().waiting) await nextImmediate();
    await nextImmediate();
    // the timers phase of the next turn comes before its check phase: between the first two batches
    expect(events).toEqual(["api 0", "api 1", "timer", "api 2", "api 3", "api 4", "api 5"]);
  });

  it("drops a GET or HEAD whose client went away while it waited, never a request with a body", async () => {
    const turns = createApiTurns(4);
    const gone = { destroyed: true, req: { method: "GET" } };
    const gonePost = { destroyed: true, req: { method: "POST" } };
    const started: string[] = [];
    turns.enqueue(gone, () => started.push("gone GET"));
    turns.enqueue(gonePost, () => started.push("gone POST"));
    turns.enqueue(open, () => started.push("GET"));
    await nextImmediate();
    expect(started).toEqual(["gone POST", "GET"]);
    expect(turns.stats()).toEqual({ waiting: 0, started: 2, dropped: 1 });
  });

  it("writes every waiting answer first, in the same turn and before the API requests of that turn", async () => {
    const turns = createApiTurns(2);
    const events: string[] = [];
    for (let i = 0; i < 3; i++) turns.enqueue(open, () => events.push(`api ${i}`));
    for (let i = 0; i < 20; i++) turns.first(() => events.push(`health ${i}`));
    expect(events).toEqual([]);
    await nextImmediate();
    expect(events).toEqual([...Array.from({ length: 20 }, (_, i) => `health ${i}`), "api 0", "api 1"]);
    turns.first(() => events.push("health 20"));
    await nextImmediate();
    expect(events.slice(22)).toEqual(["health 20", "api 2"]);
  });

  it("runs what waits for a turn after the answers and before the API requests; asked during a turn, in the next", async () => {
    const turns = createApiTurns(1);
    const events: string[] = [];
    turns.enqueue(open, () => events.push("api 0"));
    turns.enqueue(open, () => events.push("api 1"));
    turns.later(() => {
      events.push("page 0");
      turns.later(() => events.push("page 1"));
    });
    turns.first(() => events.push("health"));
    await nextImmediate();
    expect(events).toEqual(["health", "page 0", "api 0"]);
    await nextImmediate();
    expect(events).toEqual(["health", "page 0", "api 0", "page 1", "api 1"]);
  });

  it("goes on after a start or an answer that throws", async () => {
    const turns = createApiTurns(4);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const started: number[] = [];
    turns.enqueue(open, () => {
      throw new Error("boom");
    });
    turns.enqueue(open, () => started.push(2));
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
    const turns = createApiTurns();
    const started: number[] = [];
    turns.enqueue(open, () => started.push(1));
    await nextImmediate();
    turns.enqueue(open, () => started.push(2));
    await nextImmediate();
    expect(started).toEqual([1, 2]);
    expect(API_STARTS_PER_TURN).toBeGreaterThan(1);
    expect(() => createApiTurns(0)).toThrow(RangeError);
  });
});
