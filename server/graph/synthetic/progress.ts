/**
 * A terminal progress bar on stderr with rate and ETA. On a TTY it redraws one line (at most
 * every 100 ms); otherwise (logs, CI) it prints a line each time another 10% is done.
 */

/** the part of a stream the bar uses (process.stderr by default) */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  label: string;
  total: number;
  stream?: ProgressStream;
  /** milliseconds clock, replaceable in tests */
  now?: () => number;
}

const REDRAW_MS = 100;

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "--:--";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function createProgressBar(opts: ProgressOptions) {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? (() => performance.now());
  const total = Math.max(0, opts.total);
  const tty = stream.isTTY === true;
  const started = now();
  let done = 0;
  let lastDraw = -Infinity;
  let lastDecile = 0;

  function stats() {
    const elapsed = (now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = rate > 0 ? (total - done) / rate : Infinity;
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    return { elapsed, rate, eta, fraction };
  }

  function text(): string {
    const { rate, eta, fraction } = stats();
    const pct = `${Math.floor(fraction * 100)}%`.padStart(4);
    return `${pct} ${done.toLocaleString("en")}/${total.toLocaleString("en")} patients · ${Math.round(rate).toLocaleString("en")}/s · ETA ${formatDuration(eta)}`;
  }

  function draw(): void {
    const info = text();
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - opts.label.length - info.length - 6));
    const filled = Math.round(stats().fraction * width);
    stream.write(`\r${opts.label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${info}\x1b[K`);
  }

  return {
    update(value: number) {
      done = Math.min(total, Math.max(done, value));
      if (tty) {
        if (now() - lastDraw >= REDRAW_MS || done === total) {
          lastDraw = now();
          draw();
        }
        return;
      }
      const decile = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${opts.label}: ${text()}\n`);
      }
    },
    finish() {
      const { elapsed } = stats();
      if (tty) {
        draw();
        stream.write("\n");
      }
      stream.write(`${opts.label}: ${done.toLocaleString("en")} patients in ${formatDuration(elapsed)}\n`);
    },
  };
}
