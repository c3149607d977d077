/**
 * The Node flags the server process is started with, wherever it is started: `npm start`
 * (package.json's "start" script holds the same flags: node-flags.test.ts keeps the two equal), the
 * desktop's utility process (desktop/server-process.ts) and the built server of the tests, the bench
 * and the soak (tests/support/built-server.ts).
 *
 * `--max-semi-space-size=64` (MiB): V8's young generation may grow to 64 MiB per semi-space instead of
 * 16. A page request allocates a few hundred KiB that live as long as the request; at 50 requests in
 * flight the default young generation was scavenged every ~20 ms, so most of those objects survived
 * two scavenges and were promoted, and the old generation was marked and compacted every ~3.5 s, the
 * pauses behind the pages' p99 (docs/decisions/0029-young-generation-and-warm-up.md). The flag
 * cannot be set from inside the process (V8 sizes the heap before any script runs).
 *
 * `--max-old-space-size=512` (MiB): V8 collects the old generation before it passes 512 MiB. Without
 * a bound V8 sizes it from the machine's memory and lets garbage pile up between collections: a cold
 * build that scans the whole graph at 100,000 patients (the EEHRxF coverage, the federated index) grew
 * the heap to 485 MiB before a collection left 100 MiB live, and the process's peak resident memory in
 * the bench reached 1,029 MiB. With the bound the old generation, the young one (3 × 64 MiB at most)
 * and SQLite's pages stay under 1 GiB (docs/decisions/0087-old-generation-bounded.md). A larger store
 * needs a larger bound: start the server with a later `--max-old-space-size` (the last one wins).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64", "--max-old-space-size=512"];
