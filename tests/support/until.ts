/**
 * Reads `read()` every `stepMs` until `done` holds for its value or `ms` have passed, and returns the last
 * value read: the caller's assertion on it says what did not happen in time.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 30_000,
  stepMs = 100,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
