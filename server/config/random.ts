/**
 * 16 fresh random bytes, never handed out twice, drawn 256 at a time (one call to the system's random
 * source per 256 uses): the pages' CSP nonces (server/http/security-headers.ts) and the audit entries'
 * ids (server/audit/chain.ts). Here, in the bottom layer every layer may import (decision 0008), so that
 * the audit batch thread's bundle takes no HTTP code.
 */
export function random16(): Uint8Array {
  if (poolAt >= pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(16 * 256));
    poolAt = 0;
  }
  return pool.subarray(poolAt, (poolAt += 16));
}
let pool = new Uint8Array(0);
let poolAt = 0;
