import { describe, expect, it } from "vitest";
import { describeProblems, validateOdrlPolicy } from "./odrl";
import { toDocument } from "./policy-document";
import { policyTemplates } from "./templates";

const errorsOf = (p: unknown) => validateOdrlPolicy(p).errors.map((e) => `${e.path}: ${e.message}`);

describe("ODRL 2.2 validation", () => {
  it("accepts every template", () => {
    for (const t of policyTemplates("did:web:lmc.nl:participant")) {
      const r = validateOdrlPolicy(t.policy.policy);
      expect(r.errors, t.id).toEqual([]);
    }
  });

  it("names the policy type problem", () => {
    expect(errorsOf({ permission: [{ action: "use" }] })).toEqual([
      "policy.@type: is required: Set, Offer or Agreement",
    ]);
    expect(errorsOf({ "@type": "Contract", permission: [{ action: "use" }] })[0]).toMatch(
      /"Contract" is not an ODRL policy type/,
    );
    expect(errorsOf({ "@type": "odrl:Set", permission: [{ action: "odrl:use" }] })).toEqual([]);
    expect(
      errorsOf({
        "@type": "http://www.w3.org/ns/odrl/2/Set",
        permission: [{ action: { "@id": "odrl:use" } }],
      }),
    ).toEqual([]);
  });

  it("needs at least one rule, and arrays of objects", () => {
    expect(errorsOf({ "@type": "Set" })).toEqual([
      "policy: has no rules: an ODRL policy needs at least one permission, prohibition or obligation",
    ]);
    expect(errorsOf({ "@type": "Set", permission: { action: "use" } })).toEqual([
      "policy.permission: must be an array of permission objects",
    ]);
    expect(errorsOf({ "@type": "Set", permission: ["use"] })).toEqual([
      "policy.permission[0]: must be an object",
    ]);
  });

  it("checks actions, operators, left operands and values", () => {
    expect(errorsOf({ "@type": "Set", permission: [{}] })).toEqual([
      "policy.permission[0].action: is required: every rule has exactly one action",
    ]);
    expect(errorsOf({ "@type": "Set", permission: [{ action: "download" }] })[0]).toMatch(
      /"download" is not an ODRL 2.2 action/,
    );
    expect(errorsOf({ "@type": "Set", prohibition: [{ action: "ehds:reIdentify" }] })).toEqual([]);
    expect(errorsOf({ "@type": "Set", permission: [{ action: ["use", "read"] }] })[0]).toMatch(
      /single action/,
    );
    const c = (constraint: unknown) =>
      errorsOf({ "@type": "Set", permission: [{ action: "use", constraint: [constraint] }] });
    expect(c({ leftOperand: "purpose", operator: "equals", rightOperand: "x" })[0]).toMatch(
      /^policy.permission\[0\].constraint\[0\].operator: "equals" is not an ODRL 2.2 operator/,
    );
    expect(c({ leftOperand: "colour", operator: "eq", rightOperand: "x" })[0]).toMatch(
      /"colour" is not an ODRL 2.2 left operand/,
    );
    expect(c({ leftOperand: "purpose", operator: "eq" })).toEqual([
      "policy.permission[0].constraint[0].rightOperand: is required (or rightOperandReference)",
    ]);
    expect(c({ leftOperand: "dateTime", operator: "lteq", rightOperand: "next year" })[0]).toMatch(
      /xsd:date/,
    );
    expect(c({ leftOperand: "elapsedTime", operator: "lteq", rightOperand: "2 years" })[0]).toMatch(
      /xsd:duration/,
    );
    expect(c({ leftOperand: "elapsedTime", operator: "lteq", rightOperand: "P2Y" })).toEqual([]);
    expect(c({ and: [{ leftOperand: "purpose", operator: "eq", rightOperand: "x" }] })[0]).toMatch(
      /at least two constraints/,
    );
    expect(
      c({
        or: [
          { leftOperand: "purpose", operator: "eq", rightOperand: "x" },
          { leftOperand: "spatial", operator: "eq", rightOperand: "y" },
        ],
      }),
    ).toEqual([]);
  });

  it("wants parties on offers and agreements", () => {
    expect(errorsOf({ "@type": "Offer", permission: [{ action: "use" }] })).toEqual([
      "policy.assigner: an Offer must name its assigner (the party offering), on the policy or on every rule",
    ]);
    expect(errorsOf({ "@type": "Offer", permission: [{ action: "use", assigner: "did:web:a" }] })).toEqual(
      [],
    );
    expect(
      errorsOf({ "@type": "Agreement", assigner: "did:web:a", permission: [{ action: "use" }] }),
    ).toEqual(["policy.assignee: an Agreement must name its assignee, on the policy or on every rule"]);
  });

  it("reports duties only on permissions and warns on deprecated actions", () => {
    expect(
      errorsOf({ "@type": "Set", prohibition: [{ action: "distribute", duty: [{ action: "inform" }] }] })[0],
    ).toMatch(/a prohibition has no duties/);
    const r = validateOdrlPolicy({ "@type": "Set", permission: [{ action: "share" }] });
    expect(r.valid).toBe(true);
    expect(r.warnings[0]?.message).toMatch(/deprecated/);
  });

  it("wraps a bare policy and checks the id", () => {
    const bare = toDocument({ "@type": "Set", permission: [{ action: "use" }] });
    expect(bare.document?.["@id"]).toMatch(/^policy-/);
    expect(bare.document?.policy["@type"]).toBe("Set");
    const bad = toDocument({
      "@id": "has space",
      policy: { "@type": "Set", permission: [{ action: "use" }] },
    });
    expect(bad.document).toBeNull();
    expect(describeProblems(bad.result.errors)).toMatch(/^Invalid ODRL 2.2 policy: policy.@id must start/);
    const mismatch = toDocument(
      { "@id": "a", policy: { "@type": "Set", permission: [{ action: "use" }] } },
      "b",
    );
    expect(mismatch.result.errors[0]?.message).toMatch(/differs from policyId/);
  });
});
