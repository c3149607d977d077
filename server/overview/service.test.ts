import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, CLINIC, PATIENT1, REGULATOR, RESEARCHER, seededInsight } from "../analytics/test-support";

let insight: Awaited<ReturnType<typeof seededInsight>>;
beforeAll(async () => {
  insight = await seededInsight(40);
});
afterAll(() => insight?.close());

describe("persona overview", () => {
  it("gives each persona its layers with node and link counts", async () => {
    const o = await insight.overview.forUser(RESEARCHER, null);
    expect(o.persona.role).toBe("DATA_USER");
    expect(o.layers.map((l) => l.layer)).toEqual(["l1", "l2", "l4", "l5"]);
    for (const l of o.layers) expect(l.nodes).toBe(await insight.graph.countNodes([l.layer]));
    expect(o.totals.nodes).toBe(o.layers.reduce((s, l) => s + l.nodes, 0));
    expect(o.totals.links).toBeGreaterThan(o.layers.reduce((s, l) => s + l.links, 0));
    expect(o.personas.map((p) => p.role)).toEqual(["DATA_USER", "CONNECTOR_USER_PARTICIPANT"]);
  });

  it("shows the signals each persona cares about, scoped to its organisation", async () => {
    const researcher = await insight.overview.forUser(RESEARCHER, null);
    const ids = researcher.signals.map((s) => s.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "contracts-active",
        "open-tasks",
        "pending-approvals",
        "expiring-permits",
        "new-datasets",
      ]),
    );
    // PharmaCo holds three active contracts in the synthetic marketplace
    expect(researcher.signals.find((s) => s.id === "contracts-active")?.value).toBe(3);
    const regulator = await insight.overview.forUser(REGULATOR, null);
    expect(regulator.signals.find((s) => s.id === "pending-approvals")?.value).toBe(1);
    const clinic = await insight.overview.forUser(CLINIC, null);
    expect(clinic.signals.find((s) => s.id === "patients")?.value).toBe(
      await insight.graph.countWhere("Patient", { holder: "alphaklinik-berlin" }),
    );
    const patient = await insight.overview.forUser(PATIENT1, null);
    expect(patient.layers).toEqual([]);
    expect(patient.signals.find((s) => s.id === "record-conditions")?.value).toBeGreaterThan(0);
  });

  it("degrades gracefully without the access-body module, and uses it when present", async () => {
    const without = await insight.overview.forUser(REGULATOR, null, {});
    expect(without.accessBody).toBe("unavailable");
    expect(without.notes.join(" ")).toMatch(/access-body module is not available/);
    const failing = await insight.overview.forUser(REGULATOR, null, {
      accessBody: { workQueue: () => Promise.reject(new Error("down")) },
    });
    expect(failing.accessBody).toBe("unavailable");
    expect(failing.signals.length).toBeGreaterThan(0);
    const working = await insight.overview.forUser(REGULATOR, null, {
      accessBody: {
        workQueue: async () => ({
          items: [
            { kind: "application", state: "RECEIVED", waitingOn: "access body", overdue: true },
            { kind: "finding", state: "OPEN", waitingOn: "organisation", overdue: false },
          ],
        }),
        listPermits: async () => [{ state: "ACTIVE", validUntil: "2000-01-01" }],
      },
    });
    expect(working.accessBody).toBe("available");
    // one permit-expiry signal: the register's replaces the graph's
    expect(working.signals.filter((s) => /expiring/.test(s.id)).map((s) => s.id)).toEqual([
      "ab-expiring-permits",
    ]);
    expect(failing.signals.filter((s) => /expiring/.test(s.id)).map((s) => s.id)).toEqual([
      "expiring-permits",
    ]);
    expect(working.signals.find((s) => s.id === "ab-open-tasks")).toMatchObject({
      value: 1,
      detail: "1 overdue",
      source: "access-body",
      href: "/access-body",
    });
    // each signal leads to where its records are worked on
    expect(working.signals.find((s) => s.id === "pending-approvals")?.href).toBe("/access-body/applications");
    expect(working.signals.find((s) => s.id === "ab-expiring-permits")?.href).toBe("/access-body/permits");
  });

  it("lets a caller choose among their own roles only (an operator may open any)", async () => {
    expect((await insight.overview.forUser(RESEARCHER, "CONNECTOR_USER_PARTICIPANT")).persona.role).toBe(
      "CONNECTOR_USER_PARTICIPANT",
    );
    await expect(insight.overview.forUser(RESEARCHER, "HDAB_AUTHORITY")).rejects.toMatchObject({
      status: 403,
    });
    await expect(insight.overview.forUser(RESEARCHER, "wizard")).rejects.toMatchObject({ status: 400 });
    expect((await insight.overview.forUser(ADMIN, "researcher")).persona.role).toBe("DATA_USER");
  });
});
