import { afterEach, describe, expect, it } from "vitest";
import {
  FIRST_STAGE_UNBOUNDED_MS,
  operationDeadline,
  remainingDeadline,
  type DataspaceRuntime,
} from "./runtime";

/** An operation's deadline, listened to by one upstream call per participant context. */
const rt = { timeoutMs: 5_000 } as DataspaceRuntime;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.name);
afterEach(() => {
  process.off("warning", onWarning);
  warnings.length = 0;
});

async function listenMany(signal: AbortSignal, n: number) {
  process.on("warning", onWarning);
  const listeners = Array.from({ length: n }, () => () => {});
  for (const l of listeners) signal.addEventListener("abort", l, { once: true });
  // Node reports the warning on a later tick
  await new Promise((r) => setTimeout(r, 10));
  for (const l of listeners) signal.removeEventListener("abort", l);
}

describe("operation deadlines", () => {
  it("take one abort listener per participant context of a list without a leak warning", async () => {
    await listenMany(operationDeadline(rt), 60);
    await listenMany(remainingDeadline(rt, Date.now() - FIRST_STAGE_UNBOUNDED_MS)!, 60);
    expect(warnings).toEqual([]);
  });

  it("arm nothing for a second stage after a first stage shorter than FIRST_STAGE_UNBOUNDED_MS", async () => {
    expect(remainingDeadline(rt, Date.now())).toBeUndefined();
    expect(remainingDeadline(rt, Date.now() - 5)).toBeUndefined();
    expect(remainingDeadline(rt, Date.now() - FIRST_STAGE_UNBOUNDED_MS + 50)).toBeUndefined();
    const armed = remainingDeadline(rt, Date.now() - FIRST_STAGE_UNBOUNDED_MS);
    expect(armed).toBeInstanceOf(AbortSignal);
    expect(armed!.aborted).toBe(false);
    // what is left of the time-out: none left, aborted on the next turn
    const spent = remainingDeadline(rt, Date.now() - rt.timeoutMs - 10)!;
    await new Promise((r) => setTimeout(r, 5));
    expect(spent.aborted).toBe(true);
  });

  it("a plain time-out signal does warn past ten (what the deadlines avoid)", async () => {
    await listenMany(AbortSignal.timeout(5_000), 11);
    expect(warnings).toContain("MaxListenersExceededWarning");
  });
});
