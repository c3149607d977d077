import {
  CONDITIONS,
  DRUGS,
  INDICATIONS,
  MEASUREMENTS,
  PHARMACOVIGILANCE,
  ROUTINE_MEASUREMENTS,
  condition,
  drug,
  measurement,
} from "./terminology";

// SNOMED CT identifiers end in a Verhoeff check digit.
const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
function verhoeffValid(code: string): boolean {
  let c = 0;
  [...code].reverse().forEach((digit, i) => (c = VERHOEFF_D[c][VERHOEFF_P[i % 8][Number(digit)]]));
  return c === 0;
}

// LOINC codes end in a mod-10 (Luhn) check digit after the hyphen.
function luhnValid(code: string): boolean {
  let sum = 0;
  [...code.replace("-", "")].reverse().forEach((d, i) => {
    let n = Number(d);
    if (i % 2 === 1) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
  });
  return sum % 10 === 0;
}

describe("terminology", () => {
  it("has the expected breadth", () => {
    expect(CONDITIONS.length).toBeGreaterThanOrEqual(25);
    expect(CONDITIONS.length).toBeLessThanOrEqual(40);
    expect(DRUGS.length).toBeGreaterThanOrEqual(25);
    expect(DRUGS.length).toBeLessThanOrEqual(40);
    expect(MEASUREMENTS.length).toBeGreaterThanOrEqual(15);
    expect(MEASUREMENTS.length).toBeLessThanOrEqual(25);
  });

  it("uses well-formed SNOMED CT concept ids (Verhoeff check digit, concept partition)", () => {
    for (const c of CONDITIONS) {
      expect(c.snomed, c.display).toMatch(/^[1-9]\d{5,17}$/);
      expect(c.snomed.slice(-3, -1), c.display).toBe("00");
      expect(verhoeffValid(c.snomed), `${c.snomed} ${c.display}`).toBe(true);
    }
  });

  it("uses well-formed ICD-10, RxNorm, ATC and LOINC codes", () => {
    for (const c of CONDITIONS) expect(c.icd10).toMatch(/^[A-Z]\d{2}(\.\d)?$/);
    for (const d of DRUGS) {
      expect(d.rxnorm).toMatch(/^\d+$/);
      expect(d.atc).toMatch(/^[A-Z]\d{2}[A-Z]{2}\d{2}$/);
    }
    for (const m of MEASUREMENTS) {
      expect(m.loinc).toMatch(/^\d{1,5}-\d$/);
      expect(luhnValid(m.loinc), m.loinc).toBe(true);
      expect(m.referenceLow).toBeLessThan(m.referenceHigh);
    }
  });

  it("has no duplicate codes", () => {
    expect(new Set(CONDITIONS.map((c) => c.snomed)).size).toBe(CONDITIONS.length);
    expect(new Set(CONDITIONS.map((c) => c.icd10)).size).toBe(CONDITIONS.length);
    expect(new Set(DRUGS.map((d) => d.rxnorm)).size).toBe(DRUGS.length);
    expect(new Set(MEASUREMENTS.map((m) => m.loinc)).size).toBe(MEASUREMENTS.length);
  });

  it("refers only to codes it defines", () => {
    for (const [snomed, rxnorms] of Object.entries(INDICATIONS)) {
      expect(() => condition(snomed)).not.toThrow();
      for (const r of rxnorms) expect(() => drug(r)).not.toThrow();
    }
    for (const c of CONDITIONS) for (const l of c.monitoredBy) expect(() => measurement(l)).not.toThrow();
    for (const l of ROUTINE_MEASUREMENTS) expect(() => measurement(l)).not.toThrow();
    for (const m of MEASUREMENTS) {
      for (const key of Object.keys(m.shifted ?? {}))
        expect(CONDITIONS.some((c) => c.snomed === key) || DRUGS.some((d) => d.rxnorm === key)).toBe(true);
    }
  });

  it("holds the codes of the pharmacovigilance question", () => {
    const uti = condition(PHARMACOVIGILANCE.urinaryTractInfection);
    expect(uti.snomed).toBe("68566005");
    expect(uti.icd10).toBe("N39.0");
    const cipro = drug(PHARMACOVIGILANCE.ciprofloxacin);
    expect(cipro.rxnorm).toBe("2551");
    expect(cipro.display).toBe("ciprofloxacin");
    expect(cipro.atc).toBe("J01MA02");
    const rupture = condition(PHARMACOVIGILANCE.tendonRupture);
    expect(rupture.display).toMatch(/rupture/i);
    expect(rupture.display).toMatch(/tendon/i);
    expect(rupture.icd10).toMatch(/^M66\./);
  });

  it("includes the common conditions, drugs and measurements", () => {
    expect(condition("44054006").icd10).toBe("E11");
    expect(condition("38341003").icd10).toBe("I10");
    expect(drug("6809").display).toBe("metformin");
    for (const loinc of ["4548-4", "2345-7", "8480-6", "29463-7"])
      expect(() => measurement(loinc)).not.toThrow();
  });
});
