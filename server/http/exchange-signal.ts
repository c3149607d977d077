import type { ServerResponse } from "node:http";

/** the reason a page request's signal ends once its answer is written (not an Error: nothing failed) */
export const ANSWERED = "answered";

type Listener = EventListenerOrEventListenerObject;
type Options = boolean | AddEventListenerOptions | undefined;

/**
 * The signal of one page exchange (a page's or its data's Request, server/app.ts): aborted when the
 * exchange ends, with ANSWERED once the answer is written and without a reason when the client went
 * first, as @remix-run/express does. From then on it holds none of the listeners it was given.
 *
 * Why it lets them go (decision 0038): undici's Requests that follow this signal (one per loader call,
 * one per data request) keep it alive until the next mark-compact, and with it every listener on it and
 * all they reach (the loaders' data, Remix's hand-off encoder, its streams and output).
 */
export function exchangeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  const given: [string, Listener, Options][] = [];
  const add = signal.addEventListener;
  Object.defineProperty(signal, "addEventListener", {
    value(type: string, listener: Listener | null, options?: Options) {
      // a listener given after the end is not kept: the abort has happened and will not again
      if (!listener || signal.aborted) return;
      given.push([type, listener, options]);
      add.call(signal, type, listener, options);
    },
  });
  res.on("close", () => {
    controller.abort(res.writableFinished ? ANSWERED : undefined);
    for (const [type, listener, options] of given.splice(0))
      signal.removeEventListener(type, listener, options);
  });
  return signal;
}
