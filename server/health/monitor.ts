/**
 * Health probes in the background: the probe runs on a short interval (never two at once, each
 * bounded by its own time-out) and GET /api/health answers from the last result, so the route costs
 * no probe round-trip. The monitor runs only while it is asked: after `idleStopMs` without a read it
 * stops its timer, and the next read starts it again (that read waits for one fresh probe when the
 * last result is older than `maxAgeMs`). Timers never keep the process alive.
 */

export interface HealthMonitorOptions<T> {
  probe: () => Promise<T>;
  /** the result recorded when the probe itself throws (a failed probe, never a stale "ok") */
  failed: (error: unknown) => T;
  /** time between two probes while the monitor runs (default 1000 ms) */
  intervalMs?: number;
  /** the monitor stops after this long without a read (default 60 s) */
  idleStopMs?: number;
  now?: () => number;
}

export type HealthMonitor<T> = ReturnType<typeof createHealthMonitor<T>>;

export function createHealthMonitor<T>(options: HealthMonitorOptions<T>) {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 1000;
  // a result older than this is not answered: the read waits for a fresh probe
  const maxAgeMs = 10_000;
  const idleStopMs = options.idleStopMs ?? 60_000;
  let last: { health: T; at: number } | undefined;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastRead = 0;
  /** bumped by invalidate(): a probe started before records nothing */
  let generation = 0;

  function probeOnce(): Promise<void> {
    if (inFlight) return inFlight;
    const started = generation;
    const probe: Promise<void> = options
      .probe()
      .then(
        (health) => {
          if (started === generation) last = { health, at: now() };
        },
        (e: unknown) => {
          if (started === generation) last = { health: options.failed(e), at: now() };
        },
      )
      .finally(() => {
        if (inFlight === probe) inFlight = undefined;
      });
    inFlight = probe;
    return probe;
  }

  function tick() {
    if (now() - lastRead > idleStopMs) stop();
    else void probeOnce();
  }

  function start() {
    if (timer) return;
    timer = setInterval(tick, intervalMs);
    timer.unref();
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = undefined;
  }

  return {
    /**
     * The last result without waiting, when it is fresh enough to answer (counts as a read: starts the
     * monitor); null when there is none or it is older than `maxAgeMs` (then `read()` waits for a probe).
     * `ageMs`: since the probe that produced `health` finished.
     */
    peek() {
      const at = now();
      lastRead = at;
      start();
      if (!last || at - last.at > maxAgeMs) return null;
      return { health: last.health, ageMs: Math.max(0, at - last.at) };
    },
    async read() {
      lastRead = now();
      start();
      if (!last || now() - last.at > maxAgeMs) await probeOnce();
      // invalidated while waiting: wait for the probe started after that
      while (!last) await probeOnce();
      const current = last;
      return { health: current.health, ageMs: Math.max(0, now() - current.at) };
    },
    /**
     * Forgets the last result and the probe in flight (its result is not recorded): the next read waits
     * for a probe started after this call. For owners whose probed thing just changed (a restart).
     */
    invalidate() {
      generation++;
      last = undefined;
      inFlight = undefined;
    },
    stop,
  };
}
