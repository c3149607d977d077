import { describe, expect, it } from "vitest";
import { PURPOSES } from "../../server/access-body/periods";
import { looksRaw } from "../../tests/support/looks-raw";
import {
  actorLabel,
  claimLabel,
  odrlActionLabel,
  transferTypeLabel,
  purposeLabel,
  roleLabel,
  rolesLabel,
  stateLabel,
  withPurposeNames,
  words,
} from "../components/ui/labels";

describe("the label catalogue", () => {
  // issue 40: the regulator read "seed (DATA_USER)" in a history and "hdab authority" as its scope
  it("names who acted in a history: person or demonstration data, and their role in words", () => {
    expect(actorLabel("seed (DATA_USER)")).toBe("Demonstration data · Data user");
    expect(actorLabel("regulator (HDAB_AUTHORITY)")).toBe("regulator · Health data access body");
    expect(actorLabel("system (system)")).toBe("The hub");
    expect(actorLabel("someone")).toBe("someone");
    expect(actorLabel(undefined)).toBe("");
  });

  it("names every purpose as the access body does, and the marketplace's ODRL purposes too", () => {
    for (const p of PURPOSES) expect(purposeLabel(p.code)).toBe(p.label);
    expect(purposeLabel("healthCareAndMedicinalProductSafety")).toBe(
      "Public interest in public or occupational health",
    );
  });

  it("names the purposes inside a sentence from the back end, and nothing else", () => {
    expect(
      withPurposeNames(
        "purpose-bound: scientificResearch, healthCareAndMedicinalProductSafety (from your agreements)",
      ),
    ).toBe(
      "purpose-bound: Scientific research, Public interest in public or occupational health (from your agreements)",
    );
    expect(withPurposeNames("ehdsParticipantType: policyMaking")).toBe(
      "ehdsParticipantType: Policymaking and regulatory activities",
    );
  });

  it("never shows a raw enum: roles, states and unknown values become words", () => {
    expect(rolesLabel(["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"])).toBe(
      "Data holder · Dataspace participant",
    );
    expect(roleLabel("HDAB_AUTHORITY")).toBe("Health data access body");
    expect(stateLabel("awaitingPermit")).toBe("Awaiting permit");
    expect(stateLabel("GRANTED")).toBe("Granted");
    expect(stateLabel("SOME_NEW_STATE")).toBe("Some new state");
    expect(words("someNewState")).toBe("Some new state");
    for (const v of ["awaitingPermit", "HDAB_AUTHORITY", "healthCareAndMedicinalProductSafety", "GRANTED_X"])
      expect(looksRaw(v)).toBe(true);
    for (const v of [stateLabel("awaitingPermit"), roleLabel("HDAB_AUTHORITY"), "L4 · OMOP CDM v5.4"])
      expect(looksRaw(v)).toBe(false);
  });

  // issue 40, re-checked 29 Nov: a credential's claims, ODRL actions and transfer types read raw
  it("names a credential's claims, ODRL actions and transfer types in words", () => {
    expect(claimLabel("ehdsParticipantType", "DATA_HOLDER")).toBe("EHDS participant type: Data holder");
    expect(claimLabel("ehdsParticipantType", "HDAB")).toBe("EHDS participant type: Health data access body");
    expect(claimLabel("memberOf", "European Health Data Space")).toBe(
      "Member of: European Health Data Space",
    );
    expect(claimLabel("organisation", "AlphaKlinik Berlin")).toBe("Organisation: AlphaKlinik Berlin");
    expect(odrlActionLabel("ehds:reIdentify")).toBe("re-identifying people");
    expect(odrlActionLabel("anonymize")).toBe("anonymise");
    expect(odrlActionLabel("odrl:distribute")).toBe("distribute");
    expect(transferTypeLabel("HttpData-PULL")).toBe("HTTP pull");
    expect(transferTypeLabel("HttpData-PUSH")).toBe("HTTP push");
    expect(transferTypeLabel("")).toBe("");
    for (const v of [claimLabel("ehdsParticipantType", "DATA_USER"), odrlActionLabel("ehds:reIdentify")])
      expect(looksRaw(v)).toBe(false);
  });
});
