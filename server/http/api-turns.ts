/**
 * `/api` requests are started a few per turn of the event loop, in its check phase (`setImmediate`),
 * in the order they came, never from the callback that read them (docs/decisions/0040).
 *
 * Started from the read callbacks, every API request read in one poll phase ran to its answer before
 * the loop turned (a handler on the in-memory stores finishes in the microtasks after its read): at
 * 50 connections a turn held fifty requests, 5-8 ms of `/api/tasks`. GET /api/health, which the
 * listener answers from the read callback itself, waited for a turn and a half behind them (p50 9 ms
 * while `/api/tasks` was under load): a load balancer's probe queued behind real work. With at most
 * `perTurn` started per turn, the loop reads its sockets (and answers health at once) between every
 * few API requests. Pages have the same shape already (server/http/page-slots.ts, one per turn).
 *
 * A GET or HEAD whose client went away while it waited is not started (nothing would read its answer);
 * a request with a body is started all the same, as it would have been before.
 *
 * One turn for the whole server: its check phase writes health's answers first, then runs what else
 * waits for a turn (`later`: the page slots start a page there), then starts the API requests. With
 * a page slots' turn of its own (a `setImmediate` of its own), a probe queued behind a page render of
 * ~1 ms whenever that turn was scheduled first: health beside the work queue at 50 connections had
 * p50 1.23-1.44 ms instead of 0.5 ms.
 *
 * Health's answers (`first`) are written in the check phase, before any API request of that turn,
 * rather than from the read callback: the poll phase then reads every ready socket, and the
 * answers go out together after it. At 50 connections of health alone that took it from 10,000-15,000
 * to 16,600-25,100 answers/s on this machine (decision 0040): the load generator is woken once per
 * burst of answers instead of once per answer.
 */

/** API requests started per turn of the event loop */
export const API_STARTS_PER_TURN = 8;

/** the part of a Node ServerResponse the turns look at: whether it is gone, and its request's method */
export interface TurnResponse {
  readonly destroyed: boolean;
  readonly req: { readonly method?: string };
}

export interface ApiTurnStats {
  /** requests waiting for their turn now */
  waiting: number;
  /** requests started since the server started */
  started: number;
  /** bodiless requests whose client went away while they waited, never started */
  dropped: number;
}

export interface ApiTurns {
  /** runs `answer` in the check phase of this turn, before anything else of that turn */
  first(answer: () => void): void;
  /**
   * Runs `run` in the check phase of this turn (or the next one, when called during a turn), after
   * health's answers and before the API requests of that turn: the page slots' turn.
   */
  later(run: () => void): void;
  /**
   * Runs `start` in the check phase of this turn or a later one, after every request queued before it.
   * A GET or HEAD (`res.req.method`) is dropped if its response is destroyed by then.
   */
  enqueue(res: TurnResponse, start: () => void): void;
  stats(): ApiTurnStats;
}

const isBodiless = (method: string | undefined) => method === "GET" || method === "HEAD";

export function createApiTurns(perTurn: number = API_STARTS_PER_TURN): ApiTurns {
  if (!Number.isInteger(perTurn) || perTurn < 1) throw new RangeError(`api turns: ${perTurn} per turn`);
  const queue: Array<{ res: TurnResponse; start: () => void }> = [];
  const answers: Array<() => void> = [];
  let others: Array<() => void> = [];
  let scheduled = false;
  let started = 0;
  let dropped = 0;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };

  const turn = () => {
    scheduled = false;
    // every answer that waits, however many: each is a few microseconds of writing held bytes
    while (answers.length) {
      try {
        answers.shift()!();
      } catch (e) {
        console.error("[api] could not answer:", e);
      }
    }
    // what asked for this turn before it began; what asks during it waits for the next one
    const due = others;
    others = [];
    for (const run of due) run();
    let n = 0;
    while (n < perTurn && queue.length) {
      const item = queue.shift()!;
      if (item.res.destroyed && isBodiless(item.res.req.method)) {
        dropped++;
        continue;
      }
      n++;
      started++;
      try {
        item.start();
      } catch (e) {
        // `start` answers its own errors; this keeps one that throws from stopping the others
        console.error("[api] could not start a request:", e);
      }
    }
    if (queue.length || others.length) schedule();
  };

  return {
    first(answer) {
      answers.push(answer);
      schedule();
    },
    later(run) {
      others.push(run);
      schedule();
    },
    enqueue(res, start) {
      queue.push({ res, start });
      schedule();
    },
    stats: () => ({ waiting: queue.length, started, dropped }),
  };
}
