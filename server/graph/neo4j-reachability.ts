import { graphUnavailable } from "../http/errors";

/**
 * Whether the Neo4j adapter may call Neo4j, and its start-up in the background (decision 0019).
 *
 * The adapter is built without touching the network. An attempt — one bounded connectivity check, then
 * the start-up work once (constraints, the sequence counter), then any work queued with `whenReachable`
 * (seeding an empty graph) — starts at once and is retried with a doubling backoff until it succeeds;
 * nothing waits for it but the graph's own callers. States:
 * - `starting`: an attempt runs; a call waits for it, within its own time budget, then runs or gets 503;
 * - `ready`: calls run, each bounded by its deadline;
 * - `away`: the last attempt failed; calls get 503 at once (no connection is tried), the next attempt is
 *   scheduled. A call that finds Neo4j unreachable (refused, closed, protocol garbage, no connection
 *   within the acquisition time-out) turns `ready` into `away`; a call that only ran past its deadline
 *   starts a check (`starting`), which decides;
 * - `failed`: the start-up work threw a GraphSchemaError (Neo4j answers but refuses the schema: duplicate
 *   ids already there, no privilege): logged as an error once, calls get 503, nothing is retried, since
 *   trying again cannot help (decision 0046).
 * Timers are unref'd and every failure is caught: nothing here keeps the process alive or rejects unhandled.
 */

export type ReachabilityState = "starting" | "ready" | "away" | "failed" | "closed";

export interface ReachabilityOptions {
  /** one bounded round-trip to the backend; throws when it is not reachable */
  check: () => Promise<void>;
  /** run once, after the first successful check (retried with the attempt when it fails) */
  init: () => Promise<void>;
  /** each call's time budget, waiting for a running attempt included */
  timeoutMs: number;
  /** first and longest pause between two failed attempts (default 500 ms, 30 s) */
  backoff?: { initialMs: number; maxMs: number };
  log?: (message: string) => void;
  /** where a schema failure is reported (default console.error) */
  error?: (message: string) => void;
}

export interface Reachability {
  readonly state: ReachabilityState;
  /** attempts made so far (the first included) */
  readonly attempts: number;
  /**
   * Runs `op` (given its deadline in ms) when the backend is reachable; 503 (`graphUnavailable`) when it
   * is away, does not become reachable within the budget, or fails as unreachable.
   */
  guard<T>(op: (deadlineMs: number) => Promise<T>, budgetMs?: number): Promise<T>;
  /** work that needs the backend, run in order by the next successful attempt (at once when ready) */
  whenReachable(work: () => Promise<void>): void;
  /** a failure seen outside `guard` (the health ping): true when it means the backend is away or slow */
  failed(e: unknown): boolean;
  close(): void;
}

/** thrown by `withDeadline` when the work did not settle in time */
export class GraphDeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`the graph database did not answer within ${ms} ms`);
    this.name = "GraphDeadlineError";
  }
}

/** Neo4j answered, but refused the schema the adapter needs: not "unreachable", and not retried */
export class GraphSchemaError extends Error {
  constructor(override readonly cause: unknown) {
    super(
      `Neo4j refused the graph schema (${describe(cause)}); the graph stays unavailable until this is fixed and the hub restarted`,
    );
    this.name = "GraphSchemaError";
  }
}

/** `work`, or `timeout()` (a GraphDeadlineError) after `ms`; `onLate` gets the result of work that settles after that */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  onLate?: (value: T) => void,
  timeout: () => Error = () => new GraphDeadlineError(ms),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(timeout());
    }, ms);
    timer.unref();
  });
  work.then(
    (v) => {
      if (late) onLate?.(v);
    },
    () => undefined,
  );
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const UNREACHABLE_CODES = new Set(["ServiceUnavailable", "SessionExpired", "ProtocolError"]);
const UNREACHABLE_MESSAGE =
  /Connection acquisition timed out|Failed to connect|Failed to establish connection|Connection was closed|Connection lost|Unknown Bolt protocol|ECONNREFUSED|ECONNRESET|EPIPE/i;

/** a driver error that says Neo4j cannot be reached (as opposed to a bad query or a constraint) */
export function isUnreachable(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
  const message = (e as { message?: unknown }).message;
  return typeof message === "string" && UNREACHABLE_MESSAGE.test(message);
}

/** a failure that says Neo4j is away or too slow: unreachable, or past a deadline */
export const isReachabilityFailure = (e: unknown) => e instanceof GraphDeadlineError || isUnreachable(e);

export function createReachability(o: ReachabilityOptions): Reachability {
  const initialMs = o.backoff?.initialMs ?? 500;
  const maxMs = o.backoff?.maxMs ?? 30_000;
  const log = o.log ?? ((m: string) => console.warn(`[graph] ${m}`));
  let state: ReachabilityState = "starting";
  let initialised = false;
  let attempts = 0;
  let delay = initialMs;
  let attempt: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** when Neo4j went away (for the log line that says it is back), undefined while reachable */
  let awaySince: number | undefined;
  const queued: Array<() => Promise<void>> = [];

  function schedule() {
    if (state === "closed" || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, maxMs);
  }

  function wentAway(e: unknown) {
    if (state === "closed") return;
    if (awaySince === undefined) {
      awaySince = Date.now();
      log(`Neo4j is unreachable (${describe(e)}); graph calls answer 503, retrying in the background`);
    }
    state = "away";
    schedule();
  }

  function run(): Promise<void> {
    if (state === "closed") return Promise.resolve();
    if (attempt) return attempt;
    if (timer) clearTimeout(timer);
    timer = undefined;
    attempts++;
    state = "starting";
    attempt = (async () => {
      await o.check();
      if (!initialised) {
        await o.init();
        initialised = true;
      }
      while (queued.length) {
        await queued[0]();
        queued.shift();
      }
    })()
      .then(
        () => {
          if (state === "closed") return;
          state = "ready";
          delay = initialMs;
          if (awaySince !== undefined)
            log(`Neo4j is reachable again after ${((Date.now() - awaySince) / 1000).toFixed(1)} s`);
          awaySince = undefined;
        },
        (e: unknown) => {
          if (e instanceof GraphSchemaError && state !== "closed") {
            state = "failed";
            (o.error ?? ((m: string) => console.error(`[graph] ${m}`)))(e.message);
          } else wentAway(e);
        },
      )
      .finally(() => {
        attempt = undefined;
        // work queued while this attempt was finishing
        if (state === "ready" && queued.length) void run();
      });
    return attempt;
  }

  function failed(e: unknown): boolean {
    if (e instanceof GraphDeadlineError) {
      // slow is not yet away: a check decides (calls wait for it meanwhile)
      if (state === "ready") void run();
      return true;
    }
    if (isUnreachable(e)) {
      if (state === "ready") wentAway(e);
      return true;
    }
    return false;
  }

  void run();

  return {
    get state() {
      return state;
    },
    get attempts() {
      return attempts;
    },
    async guard(op, budgetMs = o.timeoutMs) {
      const until = Date.now() + budgetMs;
      if (state === "starting" && attempt)
        await withDeadline(attempt, Math.max(0, until - Date.now())).catch(() => undefined);
      if (state !== "ready") throw graphUnavailable();
      try {
        return await op(Math.max(250, until - Date.now()));
      } catch (e) {
        if (failed(e)) throw graphUnavailable();
        throw e;
      }
    },
    whenReachable(work) {
      queued.push(work);
      if (state === "ready") void run();
    },
    failed,
    close() {
      state = "closed";
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function describe(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split(". ")[0].slice(0, 200);
}
