import { describe, expect, it } from "vitest";
import { IDENTIFIED, PSEUDONYMISED, viewerOf } from "./policy";
import { minimiseTable } from "./rows";

const col = (key: string) => ({ key, label: key });

describe("minimiseTable", () => {
  const people = {
    columns: [col("patientId"), col("name"), col("birthDate"), col("gender")],
    rows: [
      { patientId: "patient-000001", name: "Maria Schneider", birthDate: "1961-04-17", gender: "female" },
    ],
  };
  const concepts = {
    columns: [col("name"), col("code"), col("patients")],
    rows: [{ name: "Hypertensive disorder", code: "38341003", patients: 12 }],
  };

  it("drops person columns for a viewer without identities", () => {
    const out = minimiseTable(PSEUDONYMISED, people);
    expect(out.columns.map((c) => c.key)).toEqual(["gender"]);
    expect(out.rows).toEqual([{ gender: "female" }]);
    expect(out.dropped.sort()).toEqual(["birthDate", "name", "patientId"]);
  });

  it("keeps aggregate tables and everything for the operator", () => {
    expect(minimiseTable(PSEUDONYMISED, concepts)).toEqual({ ...concepts, dropped: [] });
    expect(minimiseTable(IDENTIFIED, people)).toEqual({ ...people, dropped: [] });
  });

  it("drops a column that carries stored person ids whatever its name", () => {
    const t = { columns: [col("ref"), col("n")], rows: [{ ref: "see encounter-000042-01", n: 1 }] };
    const researcher = viewerOf({ roles: ["DATA_USER"], organisation: "PharmaCo Research AG" });
    expect(minimiseTable(researcher, t).columns.map((c) => c.key)).toEqual(["n"]);
  });
});
