/**
 * First come, first served: at most `limit` pages (documents and their `.data` requests) answered at
 * once, the others wait in the order they came (PAGE_CONCURRENCY, docs/decisions/0030).
 *
 * Without a limit, fifty pages under load share the one JavaScript thread: each holds its request,
 * loader data and React tree for the ~100 ms that the fifty take together, so those objects outlive
 * two young-generation collections, are promoted, and the old generation is collected every second
 * or two; and which page finishes next is left to the order of promises and timers, so a few wait
 * far longer than the rest. With a few slots, a page holds its objects for the milliseconds of its
 * own work and pages are answered in the order they came.
 *
 * A slot is given back when the response has finished or its connection closed, or after `leaseMs`
 * whatever happens: a page whose loaders wait on a slow service (a connector, a tenant manager) goes
 * on outside the limit after that, and never holds the others up for longer. A page whose client
 * went away while it waited is not started.
 *
 * One page is started per turn of the event loop (in its check phase, `setImmediate`), never from
 * the callback that read its request (docs/decisions/0033). A page renders in one synchronous pass
 * of a few milliseconds; started from the read callbacks, every request read in one poll phase was
 * answered before the loop turned, so a turn lasted as long as fifty pages (100-150 ms under load).
 * Node's libuv accepts one new connection per turn, so under load a new client waited for its
 * connection to be accepted up to seconds (one accept per 100 ms). A turn now holds one page: the
 * loop reads sockets, accepts a connection and runs its timers between any two pages.
 */

/** how long a page may hold its slot before it goes on outside the limit */
export const PAGE_SLOT_LEASE_MS = 100;

/** the part of a Node ServerResponse the slots use */
export interface SlotResponse {
  readonly destroyed: boolean;
  once(event: "finish" | "close", listener: () => void): unknown;
}

export interface PageSlotStats {
  limit: number;
  /** pages being answered inside the limit now */
  busy: number;
  /** pages waiting for a slot now */
  waiting: number;
  /** pages started since the server started */
  started: number;
  /** slots given back by their lease's end rather than by their response (slow loaders) */
  leaseEnded: number;
  /** pages whose client went away while they waited, never started */
  dropped: number;
}

export interface PageSlots {
  /** runs `start` on a later turn of the event loop, once a slot is free and the pages before it have started */
  admit(res: SlotResponse, start: () => void): void;
  stats(): PageSlotStats;
}

/**
 * `nextTurn` runs its callback in the check phase of a later turn of the event loop (`setImmediate` by
 * default); the server passes its API turns' `later`, so that in one check phase health's answers go
 * first, then a page, then a few API requests (server/http/api-turns.ts, decision 0040).
 */
export function createPageSlots(
  limit: number,
  leaseMs: number,
  nextTurnOf: (run: () => void) => void = setImmediate,
): PageSlots {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`page slots: limit ${limit}`);
  let busy = 0;
  let started = 0;
  let leaseEnded = 0;
  let dropped = 0;
  const queue: Array<{ res: SlotResponse; start: () => void }> = [];
  let turnScheduled = false;

  /** the next turn of the event loop starts the first page that waits, if a slot is free */
  const nextTurn = () => {
    if (turnScheduled || !queue.length || busy >= limit) return;
    turnScheduled = true;
    nextTurnOf(turn);
  };

  const turn = () => {
    turnScheduled = false;
    while (busy < limit && queue.length) {
      const item = queue.shift()!;
      if (item.res.destroyed) {
        dropped++;
        continue;
      }
      run(item.res, item.start);
      break;
    }
    nextTurn();
  };

  const run = (res: SlotResponse, start: () => void) => {
    busy++;
    started++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(lease);
      busy--;
      nextTurn();
    };
    const lease = setTimeout(() => {
      if (held) leaseEnded++;
      release();
    }, leaseMs);
    res.once("finish", release);
    res.once("close", release);
    try {
      start();
    } catch (e) {
      // `start` answers its own errors; this is the last resort that keeps the slot from leaking
      release();
      console.error("[pages] could not start a page:", e);
    }
  };

  return {
    admit(res, start) {
      queue.push({ res, start });
      nextTurn();
    },
    stats: () => ({ limit, busy, waiting: queue.length, started, leaseEnded, dropped }),
  };
}
