/**
 * The Node flags the server process is started with, wherever it is started: `npm start`
 * (package.json's "start" script holds the same flags: node-flags.test.ts keeps the two equal), the
 * desktop's utility process (desktop/server-process.ts) and the built server of the tests, the bench
 * and the soak (tests/support/built-server.ts). Neither can be set from inside the process.
 *
 * `--max-semi-space-size=64` (MiB): a young generation large enough that a page's objects die young
 * instead of being promoted (docs/decisions/history/0029-young-generation-and-warm-up.md).
 *
 * `--max-old-space-size=512` (MiB): the old generation collected before it passes 512 MiB, so the
 * process stays under 1 GiB (docs/decisions/0087-old-generation-bounded.md). A larger store needs a
 * larger bound: start the server with a later `--max-old-space-size` (the last one wins).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64", "--max-old-space-size=512"];
