/**
 * Timers of the local dataspace's state machines. Timers never keep the process alive (unref),
 * and close() cancels all of them; work scheduled after close is dropped.
 */
export type Scheduler = ReturnType<typeof createScheduler>;

export function createScheduler(onError: (e: unknown) => void) {
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  return {
    get closed() {
      return closed;
    },
    after(ms: number, task: () => void | Promise<void>) {
      if (closed) return;
      const t = setTimeout(() => {
        timers.delete(t);
        if (closed) return;
        Promise.resolve()
          .then(task)
          .catch((e: unknown) => {
            if (!closed) onError(e);
          });
      }, ms);
      t.unref();
      timers.add(t);
    },
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
