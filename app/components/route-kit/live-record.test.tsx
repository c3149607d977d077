import { describe, expect, it, vi } from "vitest";
import type { PolledState, PollFailure } from "./polled-state.server";

/**
 * useLiveRecord render by render, with no DOM: just enough of React's useState and useEffect (a
 * render that sets state is redone before it commits; effects run after a commit, and what they set
 * renders again), and a poll whose latest answer the test sets.
 */
const hooks = vi.hoisted(() => {
  let cells: unknown[] = [];
  let at = 0;
  let dirty = false;
  let pending: { i: number; deps?: readonly unknown[]; run: () => void }[] = [];
  const same = (a: unknown, b?: readonly unknown[]) =>
    Array.isArray(a) && !!b && a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  return {
    poll: { data: undefined as unknown },
    useState(init: unknown) {
      const i = at++;
      if (!(i in cells)) cells[i] = typeof init === "function" ? init() : init;
      const set = (v: unknown) => {
        const next = typeof v === "function" ? v(cells[i]) : v;
        if (!Object.is(next, cells[i])) [cells[i], dirty] = [next, true];
      };
      return [cells[i], set];
    },
    useEffect(run: () => void, deps?: readonly unknown[]) {
      const i = at++;
      if (!same(cells[i], deps)) pending.push({ i, deps, run });
    },
    mount() {
      cells = [];
    },
    render<T>(hook: () => T): T {
      for (;;) {
        let out: T;
        do {
          [dirty, at, pending] = [false, 0, []];
          out = hook();
        } while (dirty);
        for (const e of pending) {
          cells[e.i] = e.deps;
          e.run();
        }
        if (!dirty) return out;
      }
    },
  };
});
vi.mock(import("react"), async (actual) => ({
  ...(await actual()),
  useState: hooks.useState as never,
  useEffect: hooks.useEffect as never,
}));
vi.mock(import("@remix-run/react"), async (actual) => ({
  ...(await actual()),
  useFetcher: (() => hooks.poll) as never,
}));
vi.mock(import("../patient-app/usePolling"), () => ({ usePolling: () => {} }));
const { useLiveRecord } = await import("./live-record");

const record = { id: "r1", state: "REQUESTED", stateTimestamp: 1_000, createdAt: 900, demo: false };
const read = (state: string, at: number): PolledState => ({
  ok: true,
  id: "r1",
  state,
  errorDetail: "",
  stateTimestamp: at - 50,
  at,
});
const failure: PollFailure = { ok: false, error: "The connector did not answer", detail: null };

describe.each([
  ["transfer", "STARTED", "COMPLETED", 2_000],
  ["negotiation", "AGREED", "FINALIZED", undefined],
] as const)("the %s page's live record", (kind, next, last, loadedAt) => {
  const view = (data: unknown) => {
    hooks.poll.data = data;
    return hooks.render(() => useLiveRecord(kind, record, "", loadedAt));
  };
  const states = (v: ReturnType<typeof view>) => v.history.map((h) => h.state);

  it("keeps the last state read when a poll fails, says the poll failed, and goes on with the next good poll", () => {
    hooks.mount();
    expect(view(undefined).state).toBe("REQUESTED");
    expect(states(view(read(next, 3_000)))).toEqual(["REQUESTED", next]);

    const failed = view(failure);
    expect(failed.state).toBe(next);
    expect(failed.live?.state).toBe(next);
    expect(states(failed)).toEqual(["REQUESTED", next]);
    expect(failed.pollError).toEqual(failure);

    const again = view(read(last, 4_000));
    expect([again.state, again.pollError]).toEqual([last, null]);
    expect(states(again)).toEqual(["REQUESTED", next, last]);
  });

  it("shows the loaded state while the first poll fails", () => {
    hooks.mount();
    view(undefined);
    const failed = view(failure);
    expect([failed.state, failed.live, states(failed)]).toEqual(["REQUESTED", null, ["REQUESTED"]]);
  });
});

describe("the transfer page's live record after a pull", () => {
  it("shows the reloaded state over a poll read before the reload, and keeps it when a poll then fails", () => {
    hooks.mount();
    const view = (data: unknown, r: typeof record, loadedAt: number) => {
      hooks.poll.data = data;
      return hooks.render(() => useLiveRecord("transfer", r, "", loadedAt));
    };
    view(undefined, record, 2_000);
    const started = read("STARTED", 3_000);
    expect(view(started, record, 2_000).state).toBe("STARTED");

    const reloaded = { ...record, state: "COMPLETED", stateTimestamp: 3_500 };
    const after = view(started, reloaded, 4_000);
    expect([after.state, after.live]).toEqual(["COMPLETED", null]);
    expect(after.history.map((h) => h.state)).toEqual(["REQUESTED", "STARTED", "COMPLETED"]);

    const failed = view(failure, reloaded, 4_000);
    expect(failed.state).toBe("COMPLETED");
    expect(failed.history.map((h) => h.state)).toEqual(["REQUESTED", "STARTED", "COMPLETED"]);
  });
});
