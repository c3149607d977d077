import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import type { ChainKey } from "./chain";

/**
 * Checkpoints of the audit chain, kept outside the database (decision 0044): the head's index and
 * hash at a moment, signed with the audit key, one JSON line each, appended to a file (by default
 * `audit-checkpoints.log` in DATA_DIR; AUDIT_CHECKPOINTS names another place, e.g. an append-only
 * mount). Verify checks every checkpoint against the chain: an entry rewritten (its hash differs
 * from the checkpoint's), the newest entries deleted or the table truncated (the chain ends before
 * a checkpoint's index) are reported even by someone who holds the database and could rebuild it.
 */
export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  sig: string;
}

export type CheckpointFile = ReturnType<typeof checkpointFile>;

const signatureOf = (key: ChainKey, c: Omit<Checkpoint, "sig">) =>
  key.sign("checkpoint", [c.seq, c.hash, c.at]);

export function checkpointFile(path: string, key: ChainKey) {
  let newest: Checkpoint | undefined;
  return {
    /** appends a signed checkpoint of `head` and syncs the file */
    append(head: { seq: number; hash: string }): Checkpoint {
      const c = { seq: head.seq, hash: head.hash, at: new Date().toISOString() };
      const checkpoint = { ...c, sig: signatureOf(key, c) };
      // "a": every write goes to the end; 0600: the file is the hub's alone (created so, kept so)
      const fd = openSync(path, "a", 0o600);
      try {
        writeSync(fd, `${JSON.stringify(checkpoint)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      newest = checkpoint;
      return checkpoint;
    },
    /** the checkpoints, up to the first line that is not one signed with the key (`bad`, lines from 1) */
    read() {
      if (!existsSync(path)) return { checkpoints: [] };
      const lines = readFileSync(path, "utf8").split("\n");
      const checkpoints: Checkpoint[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!line) continue;
        let c: Checkpoint;
        try {
          c = JSON.parse(line) as Checkpoint;
        } catch {
          return { checkpoints, bad: { line: i + 1, reason: "not a checkpoint" } };
        }
        if (
          typeof c !== "object" ||
          c === null ||
          !Number.isSafeInteger(c.seq) ||
          typeof c.hash !== "string" ||
          typeof c.at !== "string" ||
          c.sig !== signatureOf(key, c)
        )
          return { checkpoints, bad: { line: i + 1, reason: "not signed with the audit key" } };
        checkpoints.push(c);
      }
      const last = checkpoints[checkpoints.length - 1];
      if (last && (!newest || last.seq >= newest.seq)) newest = last;
      return { checkpoints };
    },
    /** the newest checkpoint written or read by this process */
    last: () => newest,
  };
}
