import type { GraphNode, GraphStore } from "../graph";
import { berlinDate } from "./calendar";
import type { PermitData } from "./model";
import { seedDemoCases } from "./seed-demo";
import { seedMarketplace } from "./seed-marketplace";
import type { SeedPlan } from "./seed-story";
import type { RecordStore, SeedStep, StoredRecord } from "./store";

/**
 * Demonstration records, written once, on first use, into an empty store. Deterministic: the same
 * graph and the same first-use date give the same records.
 *
 * 1. From the marketplace: every HDABApproval node becomes the application it decided and the data
 *    permit it records (seed-marketplace.ts).
 * 2. Our own demonstration cases, dated relative to the day of first use (seed-demo.ts).
 * History entries are dated as the story goes; their actor is "seed", in the role that would have
 * acted. One audit entry per record, written at seeding time by "system", says it was seeded.
 */

interface Ctx {
  store: RecordStore;
  graph: GraphStore;
  now: () => Date;
}

export async function seedIfEmpty(ctx: Ctx): Promise<void> {
  const { store, graph } = ctx;
  if ((await store.count()) > 0 || (await store.meta("seeded"))) return;
  const now = ctx.now();
  const today = berlinDate(now);

  // ---- read the marketplace first (async), then write everything in one transaction ----
  const approvals = (await graph.findNodes({ label: "HDABApproval", limit: 1000 })).sort((a, b) =>
    a.id.localeCompare(b.id),
  );
  const approvalContracts = new Map<string, GraphNode[]>();
  for (const a of approvals) {
    const rels = await graph.relationships({ id: a.id, types: ["APPROVES"], direction: "out" });
    approvalContracts.set(
      a.id,
      rels.map((r) => r.node).filter((n) => n.label === "Contract"),
    );
  }
  const datasetTitles = new Map<string, string>();
  const datasetCounts = new Map<string, number>();
  for (const d of await graph.findNodes({ label: "HealthDataset", limit: 10_000 })) {
    datasetTitles.set(d.id, typeof d.properties.title === "string" ? d.properties.title : d.id);
    if (typeof d.properties.recordCount === "number") datasetCounts.set(d.id, d.properties.recordCount);
  }
  const known = (ids: string[]) => ids.filter((id) => datasetTitles.has(id));
  const titlesOf = (ids: string[]) => ids.map((id) => datasetTitles.get(id) ?? id);

  const counters = new Map<string, number>();
  /** the next number of a series in the year of `date`, taken (nextId) or only looked at (peekId) */
  const numbered = (take: boolean) => (prefix: string, date: string) => {
    const key = `${prefix}-${date.slice(0, 4)}`;
    const n = (counters.get(key) ?? 0) + 1;
    if (take) counters.set(key, n);
    return `${key}-${String(n).padStart(4, "0")}`;
  };
  const [nextId, peekId] = [numbered(true), numbered(false)];

  const planned: { rec: StoredRecord; steps: SeedStep[] }[] = [];
  const plan: SeedPlan = {
    seed(story, organisation, parentId, data) {
      const rec = story.record(organisation, parentId, data);
      planned.push({ rec: rec as StoredRecord, steps: story.steps });
      return rec;
    },
  };

  const permitsOf = new Map<string, StoredRecord<PermitData>[]>();
  const addPermit = (p: StoredRecord<PermitData>) =>
    permitsOf.set(p.organisation, [...(permitsOf.get(p.organisation) ?? []), p]);

  // ---- 1. the marketplace's HDAB approvals ----
  seedMarketplace({ w: plan, approvals, approvalContracts, known, titlesOf, nextId, today, addPermit });

  // ---- 2. demonstration cases, relative to today ----
  seedDemoCases({
    w: plan,
    today,
    datasetTitles,
    datasetCounts,
    known,
    titlesOf,
    nextId,
    peekId,
    permitsOf,
  });

  await store.tx(async (w) => {
    // two instances seeding at once: the second waits here and finds the records written
    await w.lock("access-body-seed");
    if (await w.meta("seeded")) return;
    for (const p of planned) await w.seed(p.rec, p.steps, now);
    await w.setMeta("seeded", now.toISOString());
  });
}
