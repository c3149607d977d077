import { afterEach, describe, expect, it, vi } from "vitest";
import { createAuditLog } from "../audit/log";
import type { Config } from "../config";
import type { GraphNode } from "../graph";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { seedStore } from "../graph/synthetic/seed";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { createTrustCenterService, TRUST_CENTER_TOPIC } from "./service";

/**
 * The trust center view is built from parts kept per graph version, per version of its tables and per
 * day (service.ts): each step below compares the route's text with the view of a service built afresh
 * on the same stores, which has nothing cached.
 */

let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

async function setup() {
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const graph = createSqliteGraphStore(db, audit);
  await seedStore(graph, { patients: 60 });
  const config = { federatedK: 5 } as Config;
  const make = () => createTrustCenterService({ rel, audit, config, graph });
  const tc = await make();
  const fresh = async (now: Date) => JSON.stringify(await (await make()).view(now));
  const approvals = await graph.findNodes({ label: "HDABApproval", limit: 5000 });
  return { rel, audit, graph, tc, fresh, approvals };
}

const at = (day: string) => new Date(`${day}T09:30:00.123Z`);
const granted = (approvals: GraphNode[]) =>
  approvals.filter((a) => a.properties.status === "GRANTED").sort((a, b) => (a.id < b.id ? -1 : 1));

describe("the trust center view", () => {
  it("is byte for byte the view built afresh, on days before, between and after the permits' ends", async () => {
    const { graph, tc, fresh, approvals } = await setup();
    const ends = granted(approvals)
      .map((a) => String(a.properties.validUntil))
      .sort();
    expect(ends.length).toBeGreaterThan(1);
    const states = new Set<string>();
    for (const day of ["2020-01-01", ends[0]!, ends.at(-1)!, "2099-12-31", ends[0]!]) {
      const text = JSON.stringify(await tc.view(at(day)));
      expect(text).toBe(await fresh(at(day)));
      expect(text).toBe(JSON.stringify(await tc.view(at(day))));
      for (const s of (JSON.parse(text) as { speSessions: { state: string }[] }).speSessions)
        states.add(`${day} ${s.state}`);
    }
    // the patients linked across two datasets, counted here from the graph's INCLUDES links
    const linked = JSON.parse(JSON.stringify(await tc.view(at("2020-01-01")))) as {
      pseudonymResolution: { linkages: { datasets: [string, string]; linkedPatients: number | null }[] };
    };
    const patientsOf = async (id: string) =>
      new Set(
        (await graph.relationships({ id, types: ["INCLUDES"], direction: "out", limit: 1000 })).map(
          (r) => r.node.id,
        ),
      );
    expect(linked.pseudonymResolution.linkages.length).toBeGreaterThan(1);
    for (const l of linked.pseudonymResolution.linkages) {
      const [a, b] = await Promise.all(l.datasets.map(patientsOf));
      const both = [...a!].filter((p) => b!.has(p)).length;
      expect(l.linkedPatients).toBe(both > 0 && both < 5 ? null : both);
    }
    // the days saw permits in force and ended ones: the date matters to the answer
    expect([...states].some((s) => s.endsWith(" active"))).toBe(true);
    expect([...states].some((s) => s.startsWith("2099-12-31") && s.endsWith(" closed"))).toBe(true);
  });

  it("shows no count of patients from 1 to k−1: a dataset's and a country's are null and marked suppressed", async () => {
    db = openDatabase(":memory:");
    const rel = openSqliteRelational(db);
    const audit = await createAuditLog(rel, db);
    const graph = createSqliteGraphStore(db, audit);
    // 20 patients: some datasets of the seeded catalogue include 1 to 4 of them
    await seedStore(graph, { patients: 20 });
    const view = await (
      await createTrustCenterService({ rel, audit, config: { federatedK: 5 } as Config, graph })
    ).view(at("2026-01-15"));
    const sizes = new Map<string, number>();
    for (const d of view.pseudonymResolution.datasets)
      sizes.set(
        d.datasetId,
        (await graph.relationships({ id: d.datasetId, types: ["INCLUDES"], direction: "out", limit: 1000 }))
          .length,
      );
    const small = [...sizes].filter(([, n]) => n > 0 && n < 5).map(([id]) => id);
    expect(small.length).toBeGreaterThan(0);
    for (const d of view.pseudonymResolution.datasets) {
      const n = sizes.get(d.datasetId)!;
      expect([d.datasetId, d.patients, d.suppressed]).toEqual(
        small.includes(d.datasetId) ? [d.datasetId, null, true] : [d.datasetId, n, false],
      );
    }
    for (const c of view.trustCenters)
      expect(c.patients === null || c.patients === 0 || c.patients >= 5).toBe(true);
  });

  it("answers the same kept view all day, its time the build's, and builds again the next day", async () => {
    const { tc } = await setup();
    const a = await tc.view(new Date("2026-05-01T08:00:00.000Z"));
    const b = await tc.view(new Date("2026-05-01T20:00:00.000Z"));
    expect(b).toBe(a);
    expect(Object.isFrozen(b)).toBe(true);
    expect(b.generatedAt).toBe("2026-05-01T08:00:00.000Z");
    const c = await tc.view(new Date("2026-05-02T08:00:00.000Z"));
    expect(c.generatedAt).toBe("2026-05-02T08:00:00.000Z");
  });

  it("shows a graph write at the next read: a permit revoked, a participant of a new country", async () => {
    const { graph, tc, fresh, approvals } = await setup();
    const now = at("2026-01-15");
    const before = JSON.stringify(await tc.view(now));
    const permit = granted(approvals)[0]!;
    await graph.mutate([{ op: "updateNode", id: permit.id, properties: { status: "REVOKED" } }], {
      action: "test",
      actor: "test",
      target: permit.id,
      kind: "test",
    });
    const revoked = JSON.stringify(await tc.view(now));
    expect(revoked).not.toBe(before);
    expect(revoked).toBe(await fresh(now));
    const session = (
      JSON.parse(revoked) as { speSessions: { id: string; state: string }[] }
    ).speSessions.find((s) => s.id === `spe-${permit.id}`);
    expect(session?.state).toBe("terminated");

    await graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: "participant-be-test",
            label: "Participant",
            layer: "l1",
            properties: {
              slug: "be-test",
              did: "did:web:be.example:participant",
              country: "BE",
              displayName: "BE",
            },
          },
        },
      ],
      { action: "test", actor: "test", target: "participant-be-test", kind: "test" },
    );
    const withBe = JSON.stringify(await tc.view(now));
    expect(withBe).toBe(await fresh(now));
    const v = JSON.parse(withBe) as {
      trustCenters: { id: string }[];
      mutualRecognition: { countries: string[] };
    };
    expect(v.trustCenters.map((c) => c.id)).toContain("trust-center-be");
    expect(v.mutualRecognition.countries).toContain("BE (Belgium)");
  });

  it("reads the tables again after a write that bumps their topic", async () => {
    const { rel, tc, fresh } = await setup();
    const now = at("2026-01-15");
    const before = JSON.stringify(await tc.view(now));
    await rel.tx(async (tx) => {
      await tx
        .updateTable("trust_recognitions")
        .set({ status: "recognised", basis: "signed in the test", since: "2026-01-01" })
        .where("from_country", "=", "NL")
        .where("to_country", "=", "FR")
        .execute();
      await rel.changes.bump(tx, TRUST_CENTER_TOPIC);
    });
    const after = JSON.stringify(await tc.view(now));
    expect(after).not.toBe(before);
    expect(after).toBe(await fresh(now));
    expect(after).toContain("signed in the test");
  });

  it("seeds its tables once, not on every read, and bumps their topic only when it inserted rows", async () => {
    const { rel, audit, graph, tc } = await setup();
    const tx = vi.spyOn(rel, "tx");
    const v0 = rel.changes.version(TRUST_CENTER_TOPIC);
    JSON.stringify(await tc.view(at("2026-01-15")));
    expect(tx).toHaveBeenCalledTimes(1);
    const v1 = rel.changes.version(TRUST_CENTER_TOPIC);
    expect(v1).toBeGreaterThan(v0);
    for (let i = 0; i < 5; i++) JSON.stringify(await tc.view(at("2026-01-15")));
    await tc.view(at("2026-01-16"));
    expect(tx).toHaveBeenCalledTimes(1);
    // another service on the seeded tables (a restart): one seeding transaction, nothing new to insert
    const again = await createTrustCenterService({ rel, audit, config: { federatedK: 5 } as Config, graph });
    JSON.stringify(await again.view(at("2026-01-15")));
    expect(tx).toHaveBeenCalledTimes(2);
    expect(rel.changes.version(TRUST_CENTER_TOPIC)).toBe(v1);
  });
});
