import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { GraphNode } from "../graph/model";
import { IDENTIFIED, PSEUDONYMISED, ROLE_POLICY, viewerOf } from "./policy";
import { createPseudonymiser, createRedactor, carriesStoredPersonId, type PatientDirectory } from "./redact";
import { patientIdOf, patientNumberOfId, patientOfId } from "./ids";
import { ids } from "../graph/synthetic/ids";

const psn = createPseudonymiser("a-test-secret-of-enough-length");
const holders = new Map<number, string>([
  [1, "alphaklinik-berlin"],
  [2, "lmc"],
  [3, "lmc"],
]);
const dir: PatientDirectory = {
  holderOf: (n) => holders.get(n),
  numberOf: (p) => [...holders.keys()].find((n) => psn.of(n) === p),
};

const maria: GraphNode = {
  id: "patient-000001",
  label: "Patient",
  layer: "l3",
  properties: {
    resourceType: "Patient",
    resourceId: "5b0c2f7e-1111-4222-8333-944455556666",
    name: "Maria Schneider",
    givenName: "Maria",
    familyName: "Schneider",
    gender: "female",
    birthDate: "1961-04-17",
    city: "Berlin",
    country: "DE",
    holder: "alphaklinik-berlin",
  },
};
const encounter: GraphNode = {
  id: "encounter-000001-03",
  label: "Encounter",
  layer: "l3",
  properties: { resourceId: "x-uuid", patientId: "patient-000001", periodStart: "2024-01-02T10:00:00Z" },
};
const person: GraphNode = {
  id: "omop-person-000001",
  label: "OMOPPerson",
  layer: "l4",
  properties: { personId: 1, yearOfBirth: 1961, monthOfBirth: 4, dayOfBirth: 17, personSourceValue: "uuid" },
};
const concept: GraphNode = {
  id: "snomed-38341003",
  label: "SnomedConcept",
  layer: "l5",
  properties: { code: "38341003", display: "Hypertensive disorder" },
};

const user = (roles: string[], organisation = "", patientId?: string) =>
  ({ roles, organisation, patientId }) as Parameters<typeof viewerOf>[0];

describe("viewerOf (the role table)", () => {
  it("gives identities to the operator, held records to a holder, the own record to a patient, none to others", () => {
    expect(viewerOf(user(["CONNECTOR_ADMIN"]))).toEqual(IDENTIFIED);
    expect(viewerOf(user(["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"], "AlphaKlinik Berlin"))).toMatchObject(
      {
        identities: "held",
        holder: "alphaklinik-berlin",
        key: "held:alphaklinik-berlin",
      },
    );
    expect(viewerOf(user(["PATIENT"], "", "patient-000002"))).toMatchObject({
      identities: "own",
      patientId: "patient-000002",
    });
    for (const roles of [
      ["DATA_USER", "CONNECTOR_USER_PARTICIPANT"],
      ["TRUST_CENTER_OPERATOR"],
      ["CONNECTOR_USER_PARTICIPANT"],
    ])
      expect(viewerOf(user(roles, "PharmaCo Research AG"))).toEqual(PSEUDONYMISED);
    expect(viewerOf(null)).toEqual(PSEUDONYMISED);
    // the access body: no identities, exact counts (a class of its own: decision 0093)
    expect(viewerOf(user(["HDAB_AUTHORITY"], "MedReg DE"))).toEqual({
      identities: "none",
      exactCounts: true,
      key: "none+counts",
    });
    // a holder role without a known organisation reads no identities
    expect(viewerOf(user(["DATA_HOLDER"], "Unknown Org"))).toEqual(PSEUDONYMISED);
  });

  it("names every role", () => {
    expect(Object.keys(ROLE_POLICY).sort()).toEqual(
      [
        "CONNECTOR_ADMIN",
        "CONNECTOR_USER_PARTICIPANT",
        "DATA_HOLDER",
        "DATA_USER",
        "HDAB_AUTHORITY",
        "PATIENT",
        "TRUST_CENTER_OPERATOR",
      ].sort(),
    );
  });
});

describe("createRedactor", () => {
  const none = createRedactor(PSEUDONYMISED, psn, dir);

  it("pseudonymises a patient: no name, birth year only, no city or resource id, a stable pseudonym id", () => {
    const n = none.node(maria);
    const text = JSON.stringify(n);
    for (const leak of ["Maria", "Schneider", "1961-04-17", "Berlin", "5b0c2f7e", "000001"])
      expect(text).not.toContain(leak);
    expect(n.properties).toMatchObject({ gender: "female", country: "DE", birthYear: 1961 });
    expect(n.id).toBe(`patient-x${psn.of(1)}`);
    expect(none.node(maria)).toEqual(n);
  });

  it("maps references and person-level ids of the same patient to the same pseudonym", () => {
    const e = none.node(encounter);
    expect(e.id).toBe(`encounter-x${psn.of(1)}-03`);
    expect(e.properties.patientId).toBe(`patient-x${psn.of(1)}`);
    expect(e.properties.resourceId).toBeUndefined();
    const p = none.node(person);
    expect(p.properties).toEqual({ yearOfBirth: 1961, personId: psn.of(1), pseudonym: psn.of(1) });
    const edge = none.edge({
      id: "patient-000001:HAS_ENCOUNTER:encounter-000001-03",
      source: "patient-000001",
      target: "encounter-000001-03",
      type: "HAS_ENCOUNTER",
    });
    expect(edge).toEqual({
      id: `${e.properties.patientId}:HAS_ENCOUNTER:${e.id}`,
      source: e.properties.patientId,
      target: e.id,
      type: "HAS_ENCOUNTER",
    });
  });

  it("drops who entered self-measured data, the device and free-text notes", () => {
    const self = none.node({
      id: "observation-self-2f1e",
      label: "Observation",
      layer: "l3",
      properties: {
        patientId: "patient-000001",
        enteredBy: "patient1",
        deviceName: "Maria's phone",
        appAccountId: "app-1234",
        note: "after the walk with Klaus",
        value: 120,
      },
    });
    expect(self.properties).toEqual({
      patientId: `patient-x${psn.of(1)}`,
      value: 120,
      pseudonym: psn.of(1),
    });
  });

  it("drops who granted and who withdrew a consent: the patient's username", () => {
    const consent = none.node({
      id: "consent-5c64",
      label: "Consent",
      layer: "l3",
      properties: {
        patientId: "patient-000001",
        status: "inactive",
        grantedBy: "patient1",
        revokedBy: "patient1",
        revokedAt: "2026-12-02T09:42:05.728Z",
      },
    });
    expect(consent.properties).toEqual({
      patientId: `patient-x${psn.of(1)}`,
      status: "inactive",
      revokedAt: "2026-12-02T09:42:05.728Z",
      pseudonym: psn.of(1),
    });
  });

  it("leaves concepts and marketplace records alone", () => {
    expect(none.node(concept)).toBe(concept);
  });

  it("resolves pseudonymised ids and refuses stored ids the viewer may not see", () => {
    expect(none.resolve(`encounter-x${psn.of(1)}-03`)).toBe("encounter-000001-03");
    expect(none.resolve("patient-000001")).toBeNull();
    expect(none.resolve("patient-xaaaaaaaaaaaa")).toBeNull();
    expect(none.resolve("snomed-38341003")).toBe("snomed-38341003");
  });

  it("shows a holder the records it holds and pseudonymises the others", () => {
    const berlin = createRedactor(viewerOf(user(["DATA_HOLDER"], "AlphaKlinik Berlin")), psn, dir);
    expect(berlin.node(maria)).toBe(maria);
    expect(berlin.resolve("patient-000001")).toBe("patient-000001");
    expect(berlin.resolve("patient-000002")).toBeNull();
    expect(berlin.text("patient-000002")).toBe(`patient-x${psn.of(2)}`);
  });

  it("shows a patient their own record only", () => {
    const own = createRedactor(viewerOf(user(["PATIENT"], "", "patient-000002")), psn, dir);
    expect(own.node(maria).properties.name).toBeUndefined();
    expect(own.resolve("patient-000002")).toBe("patient-000002");
  });

  it("shows the operator everything unchanged", () => {
    const all = createRedactor(IDENTIFIED, psn, dir);
    expect(all.node(maria)).toBe(maria);
    expect(all.resolve("patient-000001")).toBe("patient-000001");
  });
});

describe("person ids of patient numbers of a million and more (7 digits)", () => {
  const big = 1_234_567;
  const bigDir: PatientDirectory = {
    holderOf: (n) => (n === big ? "lmc" : undefined),
    numberOf: (p) => (p === psn.of(big) ? big : undefined),
  };
  const none = createRedactor(PSEUDONYMISED, psn, bigDir);

  it("are written by the generator and recognised as a person's", () => {
    expect(ids.patient(big)).toBe("patient-1234567");
    expect(patientIdOf(big)).toBe(ids.patient(big));
    expect(patientNumberOfId(ids.encounter(big, 3))).toBe(big);
    expect(patientOfId(ids.omopPerson(big))).toBe("patient-1234567");
    expect(carriesStoredPersonId(`ref ${ids.condition(big, 1)}`)).toBe(true);
  });

  it("are pseudonymised and resolved like 6-digit ones", () => {
    expect(none.text(ids.patient(big))).toBe(`patient-x${psn.of(big)}`);
    expect(none.text(`${ids.patient(big)}:HAS_ENCOUNTER:${ids.encounter(big, 3)}`)).toBe(
      `patient-x${psn.of(big)}:HAS_ENCOUNTER:encounter-x${psn.of(big)}-03`,
    );
    expect(none.text(ids.encounter(big, 3))).toBe(`encounter-x${psn.of(big)}-03`);
    expect(none.resolve(`encounter-x${psn.of(big)}-03`)).toBe(ids.encounter(big, 3));
    expect(none.resolve(ids.patient(big))).toBeNull();
    const out = none.node({
      id: ids.encounter(big, 3),
      label: "Encounter",
      layer: "l3",
      properties: { patientId: ids.patient(big) },
    });
    expect(JSON.stringify(out)).not.toContain("1234567");
  });
});

describe("pseudonyms (properties)", () => {
  it("are stable, distinct per patient, 12 base32 characters, and carry no digits of the number", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 1, max: 999_999 }), (a, b) => {
        const pa = psn.of(a);
        expect(pa).toMatch(/^[a-z2-7]{12}$/);
        expect(psn.of(a)).toBe(pa);
        if (a !== b) expect(psn.of(b)).not.toBe(pa);
      }),
    );
  });

  it("depend on the secret", () => {
    const other = createPseudonymiser("another-secret-of-enough-length");
    fc.assert(fc.property(fc.integer({ min: 1, max: 999_999 }), (n) => other.of(n) !== psn.of(n)));
  });

  it("never leave a stored patient id in a redacted node", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 0, max: 99 }), (n, seq) => {
        const id = `condition-occurrence-${String(n).padStart(6, "0")}-${String(seq).padStart(2, "0")}`;
        const out = none().node({
          id,
          label: "ConditionOccurrence",
          layer: "l4",
          properties: { personId: n, conditionOccurrenceId: n * 100 + seq, visitOccurrenceId: n * 100 },
        });
        expect(out.id).not.toContain(String(n).padStart(6, "0"));
        expect(Object.values(out.properties)).not.toContain(n);
      }),
    );
  });
});

function none() {
  return createRedactor(PSEUDONYMISED, psn, dir);
}
