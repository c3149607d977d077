import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { openDatabase } from "../storage/database";
import type { Relational } from "../storage/relational";
import { createAccessBody } from "./index";
import { marketplace, regulator, researcher } from "../../tests/support/access-body";

/**
 * The work queue is built once per version of the records and Berlin day and shared (queue.ts):
 * each step below compares it with the queue of an access body built afresh on the same store, which
 * has nothing cached.
 */

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function accessBodyOn(rel: Relational, clock: { now: Date }, seed: boolean) {
  const audit = await createAuditLog(rel);
  const graph = createSqliteGraphStore(openDatabase(":memory:"), audit);
  const m = marketplace();
  await graph.importBatch(m.nodes, m.edges);
  return createAccessBody({ rel, audit, graph, now: () => clock.now, seed });
}

describe.each(storeDialects())("the access body's work queue (%s)", (dialect) => {
  async function setupOn() {
    opened = await openTestStore(dialect);
    const clock = { now: new Date("2026-11-16T09:00:00+01:00") };
    const ab = await accessBodyOn(opened.rel, clock, true);
    // a fresh view of the same records: what the queue must equal after every step
    const fresh = async () => (await accessBodyOn(opened!.rel, clock, false)).workQueue();
    return { ab, clock, fresh };
  }

  it("is built once per version and day: shared by readers, its time the time of each read", async () => {
    const { ab, clock } = await setupOn();
    const first = await ab.workQueue();
    expect(first.items.length).toBeGreaterThan(0);
    clock.now = new Date("2026-11-16T17:30:00+01:00");
    const later = await ab.workQueue();
    expect(later.items).toBe(first.items);
    expect(later.generatedAt).toBe("2026-11-16T16:30:00.000Z");
    expect(first.generatedAt).toBe("2026-11-16T08:00:00.000Z");
    expect(Object.isFrozen(later.items[0])).toBe(true);
  });

  it("shows this instance's writes at once and counts days again on the next Berlin day", async () => {
    const { ab, clock, fresh } = await setupOn();
    const before = await ab.workQueue();
    const app = await ab.submitApplication(
      {
        title: "Respiratory readmissions",
        summary: "Readmissions after pneumonia",
        purpose: "scientificResearch",
        datasets: ["dataset-alphaklinik-respiratory"],
      },
      researcher,
    );
    const submitted = await ab.workQueue();
    expect(submitted.items).not.toBe(before.items);
    expect(submitted.items.find((i) => i.id === app.id)).toMatchObject({ action: "Check completeness" });
    expect(submitted.items).toEqual((await fresh()).items);

    await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    const assessed = await ab.workQueue();
    expect(assessed.items.find((i) => i.id === app.id)).toMatchObject({
      action: "Decide: grant a permit or refuse",
      dueDate: "2027-02-16",
    });
    expect(assessed.items).toEqual((await fresh()).items);

    // 23:59 and 00:01 in Berlin: the same version, another day
    clock.now = new Date("2026-11-16T23:59:00+01:00");
    const lastMinute = (await ab.workQueue()).items.find((i) => i.id === app.id)!;
    clock.now = new Date("2026-11-17T00:01:00+01:00");
    const next = await ab.workQueue();
    expect(next.today).toBe("2026-11-17");
    expect(next.items.find((i) => i.id === app.id)!.daysLeft).toBe(lastMinute.daysLeft! - 1);
    expect(next.items).toEqual((await fresh()).items);
  });

  it("shows another instance's acknowledged write at the next read", async () => {
    const { ab, clock } = await setupOn();
    await ab.workQueue();
    const other = await accessBodyOn(await opened!.another(), clock, false);
    const app = await other.submitApplication(
      {
        title: "Cardiovascular outcomes",
        summary: "Outcomes after infarction",
        purpose: "scientificResearch",
        datasets: ["dataset-lmc-cardiovascular"],
      },
      researcher,
    );
    // at once: on PostgreSQL the version row is read, the NOTIFY may not have arrived yet
    expect((await ab.workQueue()).items.some((i) => i.id === app.id)).toBe(true);
  });
});
