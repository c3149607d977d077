import { describe, expect, it } from "vitest";
import {
  ADMIN,
  CLINIC,
  PATIENT1,
  REGULATOR,
  RESEARCHER,
  seededInsightPerFile,
} from "../../tests/support/insight";
import { publisherOf } from "../catalogue/publisher";
import { createCatalogueService } from "../catalogue/service";
import { createPatientService } from "../patient/service";

const insight = seededInsightPerFile(40);

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

  it("counts each card from the service its list reads, scoped to the caller", async () => {
    // the real catalogue and patient services over the same graph (the lists' own reads)
    const services = {
      catalogue: createCatalogueService(insight.graph),
      patients: createPatientService(insight.graph),
    };
    const clinic = await insight.overview.forUser(CLINIC, null, services);
    expect(clinic.signals.find((s) => s.id === "patients")?.value).toBe(
      await insight.graph.countWhere("Patient", { holder: "alphaklinik-berlin" }),
    );
    const published = (await services.catalogue.list()).filter(
      (d) => publisherOf(d) === "AlphaKlinik Berlin",
    );
    expect(clinic.signals.find((s) => s.id === "datasets")).toMatchObject({
      value: published.length,
      href: "/catalogue?publisher=AlphaKlinik%20Berlin",
      source: "catalogue",
    });
    const researcher = await insight.overview.forUser(RESEARCHER, null, services);
    expect(researcher.signals.find((s) => s.id === "datasets")?.value).toBe(
      (await services.catalogue.list()).length,
    );
    // no card counts the graph's marketplace contracts or approvals any more
    expect(researcher.signals.map((s) => s.id)).not.toContain("open-tasks");
    const patient = await insight.overview.forUser(PATIENT1, null, services);
    expect(patient.layers).toEqual([]);
    const insights = await services.patients.insights(PATIENT1.patientId!, PATIENT1);
    expect(patient.signals.find((s) => s.id === "record-conditions")?.value).toBe(insights.counts.conditions);
    // a part of the container that is missing leaves its cards out
    expect((await insight.overview.forUser(CLINIC, null, {})).signals.map((s) => s.id)).toEqual(["patients"]);
  });

  it("degrades gracefully without the access-body module, and uses it when present", async () => {
    const without = await insight.overview.forUser(REGULATOR, null, {});
    expect(without.accessBody).toBe("unavailable");
    expect(without.notes.join(" ")).toMatch(/access-body module is not available/);
    const failing = await insight.overview.forUser(REGULATOR, null, {
      accessBody: { workQueue: () => Promise.reject(new Error("down")) },
    });
    expect(failing.accessBody).toBe("unavailable");
    expect(failing.signals.map((s) => s.source)).toEqual([]);
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
    expect(working.signals.find((s) => s.id === "ab-open-tasks")).toMatchObject({
      value: 2,
      detail: "1 waiting on the access body, 1 overdue",
      source: "access-body",
      href: "/access-body",
    });
    // each card leads to the list it counts, filtered the same way
    expect(working.signals.find((s) => s.id === "permits-granted")).toMatchObject({
      value: 1,
      detail: "1 expiring within 90 days",
      href: "/access-body/permits?state=ACTIVE",
    });
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

describe("persona overview, kept (forUser)", () => {
  const read = async (...args: Parameters<typeof insight.overview.forUser>) =>
    JSON.parse(JSON.stringify(await insight.overview.forUser(...args))) as Record<string, unknown>;
  const withoutTime = ({ generatedAt, ...rest }: Record<string, unknown>) => {
    expect(Date.parse(String(generatedAt))).not.toBeNaN();
    return rest;
  };
  const port = (state = { version: "1", permits: 1 }) => ({
    accessBody: {
      readyVersion: async () => state.version,
      workQueue: async () => ({ items: [] }),
      listPermits: async () =>
        Array.from({ length: state.permits }, () => ({ state: "ACTIVE", validUntil: "2000-01-01" })),
    },
  });

  it("is forUser's answer with the time of the read, for each persona and caller", async () => {
    for (const [user, persona] of [
      [RESEARCHER, null],
      [RESEARCHER, "CONNECTOR_USER_PARTICIPANT"],
      [REGULATOR, null],
      [CLINIC, null],
      [PATIENT1, null],
      [ADMIN, "researcher"],
    ] as const) {
      const services = port();
      const first = await read(user, persona, services);
      const again = await read(user, persona, services);
      expect(withoutTime(again)).toEqual(withoutTime(first));
      expect(withoutTime(first)).toEqual(
        withoutTime(JSON.parse(JSON.stringify(await insight.overview.forUser(user, persona, services)))),
      );
    }
    // two callers of the same roles in different organisations never share an answer
    const elsewhere = {
      ...RESEARCHER,
      organisation: CLINIC.organisation,
      participantDid: CLINIC.participantDid,
    };
    const ours = await read(RESEARCHER, null, port());
    const theirs = await read(elsewhere, null, port());
    expect(theirs.organisation).toBe(CLINIC.organisation);
    expect(theirs.organisation).not.toBe(ours.organisation);
  });

  it("shows a change of the access body's records or of the graph at the next read", async () => {
    const state = { version: "1", permits: 1 };
    const services = port(state);
    const signal = (o: Record<string, unknown>) =>
      (o.signals as { id: string; value: number }[]).find((s) => s.id === "permits-granted")?.value;
    expect(signal(await read(REGULATOR, null, services))).toBe(1);
    state.permits = 3;
    // the same version: the kept answer (the module says its records did not change)
    expect(signal(await read(REGULATOR, null, services))).toBe(1);
    state.version = "2";
    expect(signal(await read(REGULATOR, null, services))).toBe(3);
    const before = (await read(RESEARCHER, null, services)).graphVersion;
    await insight.graph.importBatch(
      [{ id: "overview-test-dataset", label: "HealthDataset", layer: "l2", properties: { title: "t" } }],
      [],
    );
    expect((await read(RESEARCHER, null, services)).graphVersion).not.toBe(before);
  });

  it("keeps no answer of an access body that failed, and says so each time", async () => {
    let up = false;
    const services = {
      accessBody: {
        readyVersion: async () => "7",
        workQueue: async () => {
          if (!up) throw new Error("down");
          return { items: [] };
        },
      },
    };
    const down = await read(REGULATOR, null, services);
    expect(down.accessBody).toBe("unavailable");
    expect((down.notes as string[]).join(" ")).toMatch(/did not answer \(down\)/);
    up = true;
    expect((await read(REGULATOR, null, services)).accessBody).toBe("available");
    const failingVersion = { accessBody: { readyVersion: () => Promise.reject(new Error("no")) } };
    expect((await read(REGULATOR, null, failingVersion)).accessBody).toBe("unavailable");
  });
});
