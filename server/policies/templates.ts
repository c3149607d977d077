import { PURPOSES } from "../access-body";
import type { OdrlPolicyDocument } from "./policy-document";

/**
 * Policy templates, one per purpose of secondary use in Regulation (EU) 2025/327 (EHDS)
 * Art. 53(1), plus the access body's baseline Set. Each is a complete, valid ODRL 2.2 policy:
 * the policy editor starts from one and the admin changes what the offer needs.
 *
 * What every purpose template says, and why:
 * - permission `use`, constrained to the purpose (`purpose isAnyOf [code]`) and to the secure
 *   processing environment (`spatial eq secureProcessingEnvironment`, Art. 73);
 * - prohibitions `distribute` and `ehds:reIdentify` (re-identification is prohibited, Art. 61(3));
 * - obligations `anonymize` before anything leaves the environment, `inform` the access body when
 *   results are published (Art. 61(4)), and `delete` after the permit's period (here two years).
 */

export interface PolicyTemplate {
  id: string;
  label: string;
  purpose: string | null;
  article: string;
  description: string;
  policy: OdrlPolicyDocument;
}

const prohibitions = [{ action: "distribute" }, { action: "ehds:reIdentify" }];

export function policyTemplates(assigner = "did:web:example.org:participant"): PolicyTemplate[] {
  const perPurpose = PURPOSES.map((p): PolicyTemplate => ({
    id: `template-${p.code}`,
    label: p.label,
    purpose: p.code,
    article: p.point,
    description: p.description,
    policy: {
      "@id": `offer-${p.code.replace(/([A-Z])/g, "-$1").toLowerCase()}`,
      "@type": "PolicyDefinition",
      policy: {
        "@type": "Offer",
        assigner,
        permission: [
          {
            action: "use",
            constraint: [
              { leftOperand: "purpose", operator: "isAnyOf", rightOperand: [p.code] },
              { leftOperand: "spatial", operator: "eq", rightOperand: "secureProcessingEnvironment" },
            ],
          },
        ],
        prohibition: prohibitions,
        obligation: [
          { action: "anonymize" },
          {
            action: "inform",
            constraint: [{ leftOperand: "event", operator: "eq", rightOperand: "resultPublication" }],
          },
          {
            action: "delete",
            constraint: [{ leftOperand: "elapsedTime", operator: "lteq", rightOperand: "P2Y" }],
          },
        ],
      },
    },
  }));
  const baseline: PolicyTemplate = {
    id: "template-access-body-baseline",
    label: "Access body baseline (all purposes)",
    purpose: null,
    article: "Art. 53(1), Art. 61(3), Art. 73",
    description:
      "The access body's Set that every offer refines: use only for an Art. 53(1) purpose, only inside the secure processing environment, never re-identify, anonymise outputs.",
    policy: {
      "@id": "set-ehds-secondary-use",
      "@type": "PolicyDefinition",
      policy: {
        "@type": "Set",
        permission: [
          {
            action: "use",
            constraint: [
              { leftOperand: "purpose", operator: "isAnyOf", rightOperand: PURPOSES.map((p) => p.code) },
              { leftOperand: "spatial", operator: "eq", rightOperand: "secureProcessingEnvironment" },
            ],
          },
        ],
        prohibition: prohibitions,
        obligation: [{ action: "anonymize" }],
      },
    },
  };
  return [...perPurpose, baseline];
}
