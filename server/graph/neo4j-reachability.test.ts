import { describe, expect, it } from "vitest";
import { GRAPH_UNAVAILABLE } from "../http/errors";
import {
  createReachability,
  GraphDeadlineError,
  GraphSchemaError,
  isUnreachable,
  withDeadline,
} from "./neo4j-reachability";

/**
 * The start-up and retry state machine of the Neo4j adapter, with the backend's answers given as
 * functions (a real Neo4j cannot be made to go away and come back on the build machines; the adapter
 * against real misbehaving TCP servers is tests/api/faults-neo4j.test.ts).
 */

const refused = () => Object.assign(new Error("Failed to connect to server"), { code: "ServiceUnavailable" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** whether `p` settles before the event loop's next turn: no timer, no I/O waited for */
async function settlesAtOnce(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

// generous: these wait for states, not for times (a loaded machine may be slow)
async function until(cond: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met");
    await sleep(5);
  }
}

describe("Neo4j reachability", () => {
  it("answers 503 at once while away, retries with a growing backoff, and serves again after recovery", async () => {
    let up = false;
    const checks: number[] = [];
    const order: string[] = [];
    const reach = createReachability({
      timeoutMs: 200,
      backoff: { initialMs: 20, maxMs: 80 },
      log: () => undefined,
      check: async () => {
        checks.push(Date.now());
        if (!up) throw refused();
      },
      init: async () => void order.push("init"),
    });
    reach.whenReachable(async () => void order.push("seed"));
    await until(() => reach.state === "away");
    // "at once": the 503 is there before the event loop turns (no connection tried, no timer waited
    // for), and the call itself never ran; a bound in milliseconds would depend on the machine's load
    const checksBefore = checks.length;
    let ran = false;
    const refusedCall = reach.guard(async () => void (ran = true));
    expect(await settlesAtOnce(refusedCall)).toBe(true);
    await expect(refusedCall).rejects.toMatchObject({ status: 503, message: GRAPH_UNAVAILABLE });
    expect(ran).toBe(false);
    expect(checks.length - checksBefore).toBeLessThanOrEqual(1);
    await until(() => checks.length >= 4);
    // the backoff doubles (20, 40, 80 ms): a timer never fires early, so the third pause is at least
    // 80 ms however loaded the machine is (1 ms of slack for the timer's rounding)
    const gaps = checks.slice(1).map((t, i) => t - checks[i]);
    expect(gaps[2]).toBeGreaterThanOrEqual(79);
    expect(order).toEqual([]);

    up = true;
    await until(() => reach.state === "ready");
    expect(order).toEqual(["init", "seed"]);
    expect(await reach.guard(async () => "ran")).toBe("ran");
    reach.close();
  });

  it("a call during the first attempt waits for it; a call that finds Neo4j gone turns the state away", async () => {
    let up = true;
    const reach = createReachability({
      timeoutMs: 500,
      backoff: { initialMs: 1000, maxMs: 1000 },
      log: () => undefined,
      check: async () => {
        await sleep(30);
        if (!up) throw refused();
      },
      init: async () => undefined,
    });
    expect(reach.state).toBe("starting");
    expect(await reach.guard(async () => 1)).toBe(1);
    up = false;
    await expect(reach.guard(async () => Promise.reject(refused()))).rejects.toMatchObject({ status: 503 });
    expect(reach.state).toBe("away");
    reach.close();
  });

  it("a call past its deadline starts a check that decides; other errors pass through", async () => {
    let checks = 0;
    const reach = createReachability({
      timeoutMs: 100,
      log: () => undefined,
      check: async () => void checks++,
      init: async () => undefined,
    });
    await until(() => reach.state === "ready");
    await expect(
      reach.guard((ms) => withDeadline(new Promise<number>(() => undefined), ms)),
    ).rejects.toMatchObject({ status: 503 });
    await until(() => checks === 2 && reach.state === "ready");
    const conflict = Object.assign(new Error("A node with that id already exists"), { status: 409 });
    await expect(reach.guard(() => Promise.reject(conflict))).rejects.toBe(conflict);
    expect(reach.state).toBe("ready");
    reach.close();
  });

  it("a schema Neo4j refuses fails the start loudly, as a schema error, and is not retried", async () => {
    let checks = 0;
    const errors: string[] = [];
    const warnings: string[] = [];
    const reach = createReachability({
      timeoutMs: 100,
      backoff: { initialMs: 10, maxMs: 10 },
      log: (m) => warnings.push(m),
      error: (m) => errors.push(m),
      check: async () => void checks++,
      init: async () => {
        throw new GraphSchemaError(
          Object.assign(new Error("Unable to create Constraint( name='graph_node_id' )"), {
            code: "Neo.DatabaseError.Schema.ConstraintCreationFailed",
          }),
        );
      },
    });
    await until(() => reach.state === "failed");
    await sleep(60);
    expect(checks).toBe(1);
    expect(errors).toEqual([expect.stringMatching(/^Neo4j refused the graph schema \(Unable to create/)]);
    expect(warnings.join("\n")).not.toMatch(/unreachable/);
    await expect(reach.guard(async () => 1)).rejects.toMatchObject({ status: 503 });
    reach.close();
  });

  it("recognises the driver's unreachable errors and a late result", async () => {
    expect(isUnreachable(refused())).toBe(true);
    expect(isUnreachable(new Error("Connection acquisition timed out in 1000 ms. Pool status: …"))).toBe(
      true,
    );
    expect(isUnreachable(Object.assign(new Error("x"), { code: "ProtocolError" }))).toBe(true);
    expect(
      isUnreachable(Object.assign(new Error("bad"), { code: "Neo.ClientError.Statement.SyntaxError" })),
    ).toBe(false);
    let late: string | undefined;
    await expect(
      withDeadline(
        sleep(60).then(() => "done"),
        10,
        (v) => (late = v),
      ),
    ).rejects.toBeInstanceOf(GraphDeadlineError);
    await until(() => late === "done");
  });
});
