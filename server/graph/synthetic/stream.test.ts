import { generateGraph } from "./generate";

describe("generateGraph streaming", () => {
  it("yields bounded batches at 20,000 patients", () => {
    const batchSize = 500;
    let batches = 0;
    let last = 0;
    let patients = 0;
    for (const batch of generateGraph({ patients: 20_000, batchSize })) {
      batches++;
      expect(batch.patientsDone).toBeGreaterThanOrEqual(last);
      expect(batch.patientsDone - last).toBeLessThanOrEqual(batchSize);
      // a patient has about 25 nodes and 70 edges; a batch holds at most batchSize patients
      expect(batch.nodes.length).toBeLessThanOrEqual(batchSize * 60);
      expect(batch.edges.length).toBeLessThanOrEqual(batchSize * 160);
      patients += batch.nodes.filter((n) => n.label === "Patient").length;
      last = batch.patientsDone;
    }
    expect(last).toBe(20_000);
    expect(patients).toBe(20_000);
    expect(batches).toBe(2 + 20_000 / batchSize);
  }, 90_000); // a full pass over 20,000 patients: ~7 s on an idle 2-core machine
});
