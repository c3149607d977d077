import { createHash, timingSafeEqual } from "node:crypto";

/** whether two secrets are the same, in a time that does not tell how much of them matched */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
