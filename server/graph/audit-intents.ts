import type { AuditLog } from "../audit/log";
import type { AuditEntry, AuditInput } from "../audit/model";
import type { Relational } from "../storage/relational";

/**
 * The audit entry of a graph write made in another database (Neo4j) than the audit log (the relational
 * store): an intent is written to the relational store before the graph write, and replaced by the
 * entry once the graph write has committed (decision 0051). A crash between the two leaves the intent;
 * whoever completes it later (this instance at its next start, or any instance's sweep) asks the graph
 * whether the write committed (its write mark) and appends the entry, or drops the intent. Completing
 * deletes the intent and appends the entry in one transaction, so an entry is appended once however
 * many instances try.
 */
const TABLE = "graph_audit_intents";

export async function createAuditIntents(rel: Relational, audit: AuditLog) {
  await rel.migrate("graph-audit-intents-1", async (db) => {
    await db.schema
      .createTable(TABLE)
      .addColumn("mark", "text", (c) => c.primaryKey())
      .addColumn("input", "text", (c) => c.notNull())
      .addColumn("at", "text", (c) => c.notNull())
      .execute();
  });
  const intents = {
    /** the intent of the graph write `mark`, before it is made */
    async record(mark: string, input: AuditInput, at = new Date()) {
      await rel.db
        .insertInto(TABLE)
        .values({ mark, input: JSON.stringify(input), at: at.toISOString() })
        .execute();
    },
    /** the write committed: its entry appended (at the intent's time) and the intent removed; undefined when already completed */
    complete(mark: string): Promise<AuditEntry | undefined> {
      return rel.tx(async (tx) => {
        const row = (await tx
          .deleteFrom(TABLE)
          .where("mark", "=", mark)
          .returning(["input", "at"])
          .executeTakeFirst()) as { input: string; at: string } | undefined;
        if (!row) return undefined;
        return audit.append(JSON.parse(row.input) as AuditInput, { tx, at: new Date(row.at) });
      });
    },
    /** the write did not commit: the intent removed */
    async drop(mark: string) {
      await rel.db.deleteFrom(TABLE).where("mark", "=", mark).execute();
    },
    /** the marks of intents recorded more than `ms` ago (0: all) */
    async olderThan(ms: number) {
      const rows = (await rel.db
        .selectFrom(TABLE)
        .select("mark")
        .where("at", "<=", new Date(Date.now() - ms).toISOString())
        .orderBy("at")
        .limit(1000)
        .execute()) as { mark: string }[];
      return rows.map((r) => r.mark);
    },
    /**
     * Settles the intents a crash left: those whose write `committed` (asked of the graph) get their
     * entry, whatever their age; those without are dropped once older than `staleMs`. Resolves how many
     * entries were appended.
     */
    async settle(committed: (marks: string[]) => Promise<Set<string>>, staleMs: number): Promise<number> {
      const marks = await intents.olderThan(0);
      if (!marks.length) return 0;
      const done = await committed(marks);
      const stale = new Set(await intents.olderThan(staleMs));
      let appended = 0;
      for (const mark of marks) {
        if (done.has(mark)) {
          if (await intents.complete(mark)) appended++;
        } else if (stale.has(mark)) await intents.drop(mark);
      }
      return appended;
    },
  };
  return intents;
}
