import { describe, expect, it } from "vitest";
import { seededInsightPerFile } from "../../tests/support/insight";
import { findAll } from "../graph";
import { forUser, type EehrxfCoverage } from "./service";

const insight = seededInsightPerFile(60);

/** the access body sees the answer as built: exact counts */
const ACCESS_BODY = { roles: ["HDAB_AUTHORITY" as const] };

describe("EEHRxF coverage", () => {
  it("lists the five priority categories with their HL7 Europe / IPS profiles", async () => {
    const c = await insight.eehrxf.coverage(ACCESS_BODY);
    expect(c.categories.map((x) => x.id)).toEqual([
      "patient-summary",
      "eprescription",
      "laboratory",
      "imaging",
      "discharge",
    ]);
    const canonicals = c.categories.flatMap((x) => x.profiles.map((p) => p.canonical));
    expect(canonicals).toContain(
      "http://hl7.eu/fhir/laboratory/StructureDefinition/Observation-resultslab-eu-lab",
    );
    expect(canonicals).toContain("http://hl7.eu/fhir/hdr/StructureDefinition/encounter-eu-hdr");
    expect(canonicals).toContain("http://hl7.org/fhir/uv/ips/StructureDefinition/MedicationRequest-uv-ips");
    for (const cat of c.categories) expect(cat.legalBasis).toMatch(/EHDS Art\. 14/);
  });

  it("computes coverage from the data", async () => {
    const c = await insight.eehrxf.coverage(ACCESS_BODY);
    const g = insight.graph;
    const lab = c.categories.find((x) => x.id === "laboratory")!;
    const labObs = (await findAll(g, "Observation")).filter((o) => o.properties.category === "laboratory");
    expect(lab.profiles[0].resources).toBe(labObs.length);
    expect(lab.profiles[0].conformant).toBe(labObs.length); // synthetic lab results carry everything required
    expect(lab.profiles[0].elements.find((e) => e.path === "Observation.performer")?.present).toBe(0);
    expect(lab.profiles[1]).toMatchObject({ resourceType: "DiagnosticReport", inGraph: false, resources: 0 });

    const summary = c.categories.find((x) => x.id === "patient-summary")!;
    expect(summary.profiles[0].resources).toBe(await g.countWhere("Patient"));
    expect(summary.readiness.ready).toBe(0);
    expect(summary.readiness.partial?.count).toBe(await g.countWhere("Patient"));
    expect(summary.readiness.gaps.join(" ")).toMatch(/AllergyIntolerance/);

    const rx = c.categories.find((x) => x.id === "eprescription")!;
    expect(rx.profiles[0].resources).toBe(await g.countWhere("MedicationRequest"));
    expect(
      rx.profiles[0].elements.find((e) => e.path.startsWith("MedicationRequest.requester"))?.coverage,
    ).toBe(0);
    expect(rx.readiness.coverage).toBe(0);

    const discharge = c.categories.find((x) => x.id === "discharge")!;
    const inpatient = (await findAll(g, "Encounter")).filter((e) => e.properties.class === "IMP");
    expect(discharge.profiles[0].resources).toBe(inpatient.length);
    expect(discharge.readiness.total).toBe(inpatient.length);
    expect(discharge.readiness.ready).toBeLessThanOrEqual(inpatient.length);

    expect(c.categories.find((x) => x.id === "imaging")!.readiness.total).toBe(0);
    // kept per graph version as built: the same answer again, encoded once at the edge
    expect(await insight.eehrxf.coverage(ACCESS_BODY)).toBe(c);
  });

  it("withholds small counts and the counts they could be recomputed from, except from the supervisory roles", async () => {
    const c = await insight.eehrxf.coverage(ACCESS_BODY);
    expect(forUser(c, { roles: ["HDAB_AUTHORITY"] }, 5)).toBe(c);
    // 40 lab results, 2 of them not conformant, an element present in 3
    const edited: EehrxfCoverage = structuredClone(c);
    const lab = edited.categories.find((x) => x.id === "laboratory")!;
    const p = lab.profiles[0];
    Object.assign(p, { resources: 40, conformant: 38, coverage: 95 });
    p.elements = p.elements.map((e, i) => ({ ...e, present: i ? 40 : 3, coverage: i ? 100 : 7.5 }));
    // the third element's 40 records are of 2 patients only
    p.patients = [20, 20, 3, 20, 2, ...p.elements.slice(3).map(() => 20)];
    Object.assign(lab.readiness, { total: 40, ready: 38, coverage: 95 });
    const seen = forUser(edited, { roles: ["DATA_USER"] }, 5).categories.find((x) => x.id === "laboratory")!;
    expect(seen.profiles[0]).toMatchObject({ resources: 40, conformant: null, coverage: null });
    expect(seen.profiles[0].elements[0]).toMatchObject({ present: null, coverage: null });
    expect(seen.profiles[0].elements[1]).toMatchObject({ present: 40, coverage: 100 });
    expect(seen.profiles[0].elements[2]).toMatchObject({ present: null, coverage: null });
    expect(seen.profiles[0]).not.toHaveProperty("patients");
    expect(seen.readiness).toMatchObject({ total: 40, ready: null, coverage: null });
    expect(seen.readiness.gaps.join(" ")).toMatch(/coverage withheld \(small counts\)/);
  });
});
