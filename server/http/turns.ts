/**
 * The server's one scheduler: what runs in each turn of the event loop (docs/performance.md).
 *
 * Nothing a request asks for is started from the callback that read it. In the check phase of a turn
 * (`setImmediate`), in this order:
 * 1. every waiting health answer (`first`): pre-encoded bytes, so a load balancer's probe never waits
 *    behind real work;
 * 2. at most one page (`page`: a document or its `.data` request), when a page slot is free;
 * 3. at most `apiPerTurn` `/api` requests (`api`), in the order they came.
 * Between two turns the loop reads its sockets, accepts a connection (libuv accepts one per turn) and
 * runs its timers, so no burst of work holds the others up for longer than a few requests.
 *
 * Pages: at most `pageLimit` answered at once (each holds its loader data and React tree only for
 * the milliseconds of its own work), shared fairly between callers: each caller (`who`: the session,
 * else the peer address) has a queue of its own, and a free slot goes to the callers that wait in
 * turn, one page each. One user's forty heavy pages do not make another user's page wait behind them.
 * A slot is given back when the response finishes or its connection closes, or after `leaseMs`
 * whatever happens (a page whose loaders wait on a slow service goes on outside the limit then).
 * `pageLimit` 0: no limit, pages start at once.
 *
 * A GET or HEAD whose client went away while it waited is not started (nothing would read its
 * answer); an API request with a body is started all the same.
 */

/** API requests started per turn of the event loop */
export const API_STARTS_PER_TURN = 8;
/** how long a page may hold its slot before it goes on outside the limit */
export const PAGE_SLOT_LEASE_MS = 100;

/** the part of a Node ServerResponse the scheduler looks at */
export interface TurnResponse {
  readonly destroyed: boolean;
  readonly req: { readonly method?: string };
  once(event: "finish" | "close", listener: () => void): unknown;
}

export interface TurnOptions {
  apiPerTurn?: number;
  /** pages answered at once; 0: no limit */
  pageLimit?: number;
  leaseMs?: number;
}

interface Waiting {
  res: TurnResponse;
  start: () => void;
}

const isBodiless = (method: string | undefined) => method === "GET" || method === "HEAD";

/** a queue that takes from its front in constant time (Array#shift copies past ~50k entries) */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  get length() {
    return this.items.length - this.head;
  }
  push(item: T) {
    this.items.push(item);
  }
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export function createTurns(options: TurnOptions = {}) {
  const apiPerTurn = options.apiPerTurn ?? API_STARTS_PER_TURN;
  const pageLimit = options.pageLimit ?? 0;
  const leaseMs = options.leaseMs ?? PAGE_SLOT_LEASE_MS;
  if (!Number.isInteger(apiPerTurn) || apiPerTurn < 1)
    throw new RangeError(`turns: ${apiPerTurn} API starts per turn`);
  if (!Number.isInteger(pageLimit) || pageLimit < 0) throw new RangeError(`turns: page limit ${pageLimit}`);

  const answers: Array<() => void> = [];
  const apiQueue = new Fifo<Waiting>();
  /** since the server started: requests started, and bodiless ones whose client went away while they waited */
  const api = { started: 0, dropped: 0 };
  /** each waiting caller's pages, in the order the callers are served (a Map keeps insertion order) */
  const pageQueues = new Map<string, Fifo<Waiting>>();
  /**
   * pages answered inside the limit now, waiting now, started, whose slot their lease's end gave back
   * (slow loaders), and whose client went away while they waited
   */
  const pages = { busy: 0, waiting: 0, started: 0, leaseEnded: 0, dropped: 0 };
  let scheduled = false;

  const pageReady = () => pages.waiting > 0 && pages.busy < pageLimit;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };

  /** the first page of the caller whose turn it is; that caller then goes to the back of the line */
  const nextPage = (): Waiting | undefined => {
    for (const [who, queue] of pageQueues) {
      const item = queue.shift()!;
      pages.waiting--;
      pageQueues.delete(who);
      if (queue.length) pageQueues.set(who, queue);
      if (!item.res.destroyed) return item;
      pages.dropped++;
    }
    return undefined;
  };

  const runPage = ({ res, start }: Waiting) => {
    pages.busy++;
    pages.started++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(lease);
      pages.busy--;
      if (pageReady()) schedule();
    };
    const lease = setTimeout(() => {
      if (held) pages.leaseEnded++;
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
    if (pageReady()) {
      const item = nextPage();
      if (item) runPage(item);
    }
    for (let n = 0; n < apiPerTurn && apiQueue.length;) {
      const item = apiQueue.shift()!;
      if (item.res.destroyed && isBodiless(item.res.req.method)) {
        api.dropped++;
        continue;
      }
      n++;
      api.started++;
      try {
        item.start();
      } catch (e) {
        // `start` answers its own errors; this keeps one that throws from stopping the others
        console.error("[api] could not start a request:", e);
      }
    }
    if (apiQueue.length || answers.length || pageReady()) schedule();
  };

  return {
    /** runs `answer` in the check phase of this turn, before anything else of that turn */
    first(answer: () => void) {
      answers.push(answer);
      schedule();
    },
    /** starts an /api request in a later check phase, after every one queued before it */
    api(res: TurnResponse, start: () => void) {
      apiQueue.push({ res, start });
      schedule();
    },
    /** starts a page in a later check phase, once a slot is free and `who`'s turn among the waiting has come */
    page(res: TurnResponse, who: string, start: () => void) {
      if (pageLimit === 0) return start();
      let queue = pageQueues.get(who);
      if (!queue) pageQueues.set(who, (queue = new Fifo()));
      queue.push({ res, start });
      pages.waiting++;
      if (pageReady()) schedule();
    },
    apiStats: () => ({ waiting: apiQueue.length, ...api }),
    /** `callers`: callers with pages waiting now */
    pageStats: () => ({ limit: pageLimit, ...pages, callers: pageQueues.size }),
  };
}
