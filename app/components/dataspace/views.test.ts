import { describe, expect, it } from "vitest";
import { fhirRow, fhirTable, shortDate, systemLabel } from "./fhir";
import { pipelineOf, stateTone } from "./states";

/** The dataspace views' pure helpers: state pipelines and the FHIR records table. */

const statuses = (kind: Parameters<typeof pipelineOf>[0], state: string, reached?: string) =>
  pipelineOf(kind, state, reached).steps.map((s) => `${s.name}:${s.status}`);

describe("state pipelines", () => {
  it("marks the reached steps of a negotiation, the current one, and the ones to come", () => {
    expect(statuses("negotiation", "REQUESTED")).toEqual([
      "REQUESTED:current",
      "AGREED:todo",
      "VERIFIED:todo",
      "FINALIZED:todo",
    ]);
    expect(statuses("negotiation", "VERIFIED")).toEqual([
      "REQUESTED:done",
      "AGREED:done",
      "VERIFIED:current",
      "FINALIZED:todo",
    ]);
    const final = pipelineOf("negotiation", "FINALIZED");
    expect(final.settled).toBe(true);
    expect(final.steps.every((s) => s.status === "done")).toBe(true);
  });

  it("places the DSP states between the steps as transitions in progress", () => {
    expect(statuses("negotiation", "AGREEING")).toEqual([
      "REQUESTED:done",
      "AGREED:active",
      "VERIFIED:todo",
      "FINALIZED:todo",
    ]);
    expect(statuses("transfer", "REQUESTING")).toEqual([
      "REQUESTED:active",
      "STARTED:todo",
      "COMPLETED:todo",
    ]);
    expect(pipelineOf("transfer", "STARTED").settled).toBe(false);
    expect(pipelineOf("transfer", "COMPLETED").settled).toBe(true);
  });

  it("ends with a failed TERMINATED step, after the last state seen before it", () => {
    expect(statuses("negotiation", "TERMINATED", "AGREED")).toEqual([
      "REQUESTED:done",
      "AGREED:done",
      "VERIFIED:todo",
      "FINALIZED:todo",
      "TERMINATED:failed",
    ]);
    const t = pipelineOf("transfer", "TERMINATED");
    expect(t).toMatchObject({ settled: true, failed: true });
    expect(t.steps.slice(0, 3).every((s) => s.status === "todo")).toBe(true);
  });

  it("shows an unknown state as it is, without claiming progress", () => {
    const v = pipelineOf("transfer", "WHATEVER");
    expect(v).toMatchObject({ unknown: true, settled: false });
    expect(v.steps.every((s) => s.status === "todo")).toBe(true);
  });

  it("gives states a tone", () => {
    expect(stateTone("FINALIZED")).toBe("ok");
    expect(stateTone("TERMINATED")).toBe("danger");
    expect(stateTone("CREATED")).toBe("warn");
    expect(stateTone("REQUESTED")).toBe("info");
  });
});

describe("FHIR records table", () => {
  it("reads the flattened resources of the embedded dataspace's graph source", () => {
    const table = fhirTable({
      resourceType: "Bundle",
      type: "collection",
      total: 3,
      entry: [
        {
          resource: {
            resourceType: "Patient",
            id: "0b1c",
            gender: "female",
            birthDate: "1968",
            country: "DE",
            graphId: "patient-000001",
          },
        },
        {
          resource: {
            resourceType: "Observation",
            id: "obs-1",
            code: "4548-4",
            codeSystem: "http://loinc.org",
            display: "Hemoglobin A1c",
            value: 8.1,
            unit: "%",
            interpretation: "H",
            status: "final",
            effectiveDateTime: "2024-03-05T14:05:00Z",
            patientId: "patient-000001",
          },
        },
        {
          resource: {
            resourceType: "MedicationRequest",
            id: "med-1",
            code: "860975",
            codeSystem: "http://www.nlm.nih.gov/research/umls/rxnorm",
            display: "metformin 500 MG",
            dosageText: "500 mg twice daily",
            status: "active",
            authoredOn: "2024-03-05",
            patientId: "patient-000001",
          },
        },
      ],
    });
    expect(table).toMatchObject({ shape: "Bundle (collection)", total: 3 });
    expect(table.types).toEqual([
      { type: "Patient", count: 1 },
      { type: "Observation", count: 1 },
      { type: "MedicationRequest", count: 1 },
    ]);
    const [patient, obs, med] = table.rows;
    expect(patient).toMatchObject({ text: "female, born 1968, DE", patient: "patient-000001", date: "1968" });
    expect(obs).toMatchObject({
      system: "LOINC",
      code: "4548-4",
      text: "Hemoglobin A1c",
      value: "8.1 % (high)",
      status: "final",
      patient: "patient-000001",
    });
    expect(shortDate(obs.date)).toBe("2024-03-05 14:05");
    expect(med).toMatchObject({ system: "RxNorm", value: "500 mg twice daily", date: "2024-03-05" });
  });

  it("reads standard FHIR R4 shapes: codings, quantities, references", () => {
    const row = fhirRow(
      {
        resourceType: "Observation",
        id: "o1",
        status: "final",
        code: { coding: [{ system: "http://loinc.org", code: "2345-7", display: "Glucose" }] },
        valueQuantity: { value: 6.2, unit: "mmol/L" },
        subject: { reference: "Patient/p1" },
        effectiveDateTime: "2023-01-02",
      },
      0,
    );
    expect(row).toMatchObject({
      code: "2345-7",
      system: "LOINC",
      text: "Glucose",
      value: "6.2 mmol/L",
      patient: "Patient/p1",
      date: "2023-01-02",
    });
    const condition = fhirRow(
      {
        resourceType: "Condition",
        clinicalStatus: { coding: [{ code: "active" }] },
        code: { text: "Type 2 diabetes" },
      },
      1,
    );
    expect(condition).toMatchObject({ text: "Type 2 diabetes", status: "active" });
  });

  it("takes one resource, an array, or anything else without failing", () => {
    expect(fhirTable({ resourceType: "Patient", id: "p" }).rows).toHaveLength(1);
    expect(fhirTable([{ resourceType: "Encounter" }, { resourceType: "Encounter" }]).types).toEqual([
      { type: "Encounter", count: 2 },
    ]);
    expect(fhirTable({ some: "json" })).toMatchObject({ shape: "JSON", rows: [] });
    expect(fhirTable(null).rows).toEqual([]);
    expect(systemLabel("http://snomed.info/sct")).toBe("SNOMED CT");
    expect(systemLabel("urn:other")).toBe("urn:other");
  });
});
