import { describe, expect, it } from "vitest";
import { idTokenClaims, userFromClaims } from "./claims";

/** ID token payloads in the shapes Keycloak 26 sends (realm deploy/keycloak/realm.json, built-in scopes) */
const base = { sub: "684dff79-da9f-4456-8dbc-b8815aef4b5d", preferred_username: "researcher" };

describe("userFromClaims", () => {
  it("reads roles, organisation, DID and patient id from the claims of the shipped realm", () => {
    const user = userFromClaims(
      idTokenClaims.parse({
        ...base,
        name: "Dr. Lukas Schmidt",
        realm_access: { roles: ["DATA_USER", "CONNECTOR_USER_PARTICIPANT", "default-roles-ehds"] },
        organization: "PharmaCo Research AG",
        participant_did: "did:web:pharmaco.de:research",
      }),
    );
    expect(user).toMatchObject({
      sub: base.sub,
      username: "researcher",
      roles: ["DATA_USER", "CONNECTOR_USER_PARTICIPANT"],
      organisation: "PharmaCo Research AG",
      participantDid: "did:web:pharmaco.de:research",
    });
  });

  it("accepts Keycloak 26's organization scope: an array of aliases or an object keyed by alias", () => {
    const asArray = userFromClaims(idTokenClaims.parse({ ...base, organization: ["pharmaco"] }));
    expect(asArray.organisation).toBe("PharmaCo Research AG");
    const asObject = userFromClaims(
      idTokenClaims.parse({ ...base, organization: { lmc: { id: "0d6c3f5e-…" } } }),
    );
    expect(asObject.organisation).toBe("Limburg Medical Centre");
    const unknown = userFromClaims(idTokenClaims.parse({ ...base, organization: ["acme-hospital"] }));
    expect(unknown.organisation).toBe("acme-hospital");
  });

  it("fills nothing in from the persona table: a token without the claims gives a user without them", () => {
    const user = userFromClaims(idTokenClaims.parse({ ...base, preferred_username: "patient1" }));
    expect(user).toMatchObject({
      roles: [],
      organisation: "",
      participantDid: undefined,
      patientId: undefined,
    });
  });

  it("keeps a patient id only with the PATIENT role", () => {
    const patient = userFromClaims(
      idTokenClaims.parse({ ...base, realm_access: { roles: ["PATIENT"] }, patient_id: "patient-000002" }),
    );
    expect(patient.patientId).toBe("patient-000002");
    const other = userFromClaims(
      idTokenClaims.parse({ ...base, realm_access: { roles: ["DATA_USER"] }, patient_id: "patient-000002" }),
    );
    expect(other.patientId).toBeUndefined();
  });
});
