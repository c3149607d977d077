import { type ApiError } from "../http/errors";
import { isObject, ODRL_CONTEXT, MANAGEMENT_CONTEXT } from "../dataspace-protocol";
import { z } from "zod";
import { describeProblems, validateOdrlPolicy, type ValidationResult } from "./odrl";
import { invalidFields } from "../http/field-errors";

/**
 * The policy document: what a request's `policy` reads as (toDocument, validated against ODRL 2.2),
 * what the connector is sent (definitionBody) and what a connector's policy definition reads as
 * (fromConnector).
 */

export const POLICY_FIELDS_REQUIRED = "participantId and policy are required";
export const POLICY_UPDATE_FIELDS_REQUIRED = "policyId, participantId, and policy are required";
export const POLICY_ID_REQUIRED = "policyId query parameter is required";
export const POLICY_PUSH_FAILED = "Failed to push the policy to the connector";
export const POLICY_LIST_FAILED = "Failed to fetch policy definitions";

const ruleList = z.array(z.record(z.string(), z.unknown())).optional();
/**
 * The spec's OdrlPolicy: `@id`, `@type`, and `policy` with `@type` Set, Offer or Agreement and its rules,
 * as the hub keeps it and the connector's management API carries it.
 */
export const odrlPolicyDocument = z.object({
  "@id": z.string(),
  "@type": z.string(),
  policy: z
    .looseObject({ "@type": z.string(), permission: ruleList, prohibition: ruleList, obligation: ruleList })
    .describe("the ODRL policy (Set, Offer or Agreement) with its rules, other keys as sent"),
});
export type OdrlPolicyDocument = z.infer<typeof odrlPolicyDocument>;

/** a policy as the list, get, create and update answer it */
export const listedPolicy = odrlPolicyDocument.extend({
  participantId: z.string(),
  source: z
    .enum(["hub", "connector"])
    .describe(
      "hub: written through the hub (registry); connector: found only at the connector (seeded or written elsewhere)",
    ),
  version: z.number().int().nullable(),
  createdBy: z.string().nullable(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
  connector: z
    .object({
      state: z.enum(["in-sync", "hub-newer", "missing-at-connector", "connector-only"]),
      detail: z.string().nullable(),
    })
    .describe("whether the connector holds the hub's latest version"),
});
export type ListedPolicy = z.infer<typeof listedPolicy>;
export type ConnectorSyncState = ListedPolicy["connector"]["state"];

const POLICY_ID = /^[A-Za-z0-9][A-Za-z0-9._:~@-]{0,199}$/;

/**
 * Reads the `policy` of a request: an OdrlPolicy (`{"@id", "@type", "policy": {...}}`) or, for
 * convenience, a bare ODRL policy (`{"@type": "Set", "permission": [...]}`), which is wrapped.
 */
export function toDocument(
  input: unknown,
  policyId?: string,
): { document: OdrlPolicyDocument | null; result: ValidationResult } {
  if (!isObject(input)) {
    return {
      document: null,
      result: {
        valid: false,
        type: undefined,
        warnings: [],
        errors: [{ path: "policy", message: "must be an OdrlPolicy object" }],
      },
    };
  }
  const wrapped = isObject(input.policy);
  const inner = (wrapped ? input.policy : input) as Record<string, unknown>;
  const rawId = wrapped ? input["@id"] : (input["@id"] ?? input.uid);
  const errors: ValidationResult["errors"] = [];
  let id = typeof rawId === "string" && rawId.trim() !== "" ? rawId : undefined;
  if (rawId !== undefined && typeof rawId !== "string")
    errors.push({ path: "policy.@id", message: "must be a string" });
  if (policyId) {
    if (id && id !== policyId)
      errors.push({ path: "policy.@id", message: `"${id}" differs from policyId "${policyId}"` });
    id = policyId;
  }
  id = id ?? `policy-${crypto.randomUUID()}`;
  if (!POLICY_ID.test(id)) {
    errors.push({
      path: "policy.@id",
      message:
        "must start with a letter or digit and hold only letters, digits and . _ : ~ @ - (at most 200)",
    });
  }
  if (wrapped && input["@type"] !== undefined && typeof input["@type"] !== "string")
    errors.push({ path: "policy.@type", message: "must be a string" });
  const result = validateOdrlPolicy(inner, wrapped ? "policy.policy" : "policy");
  result.errors.unshift(...errors);
  result.valid = result.errors.length === 0;
  const { "@context": _ctx, uid: _uid, ...rest } = inner;
  const document: OdrlPolicyDocument = {
    "@id": id,
    "@type": wrapped && typeof input["@type"] === "string" ? input["@type"] : "PolicyDefinition",
    policy: {
      ...rest,
      "@type": String(inner["@type"] ?? ""),
      permission: (inner.permission ?? []) as Record<string, unknown>[],
      prohibition: (inner.prohibition ?? []) as Record<string, unknown>[],
      obligation: (inner.obligation ?? []) as Record<string, unknown>[],
    },
  };
  return { document: result.valid ? document : null, result };
}

export function invalid(result: ValidationResult): ApiError {
  const message = describeProblems(result.errors);
  return invalidFields(message, [{ path: "policy", message }], 400, {
    problems: result.errors,
    warnings: result.warnings,
  });
}

/**
 * The connector's policy definition body (EDC management API): a PolicyDefinition whose policy is an
 * ODRL Set (EDC refuses an Offer or an Agreement there: 400, checked against EDC 0.15.1 in the
 * connector contract), without empty rule lists (the participant-scoped API's schema refuses them).
 * The hub's registry keeps the document as written, its type included.
 */
export function definitionBody(doc: OdrlPolicyDocument) {
  const policy: Record<string, unknown> = { "@context": ODRL_CONTEXT, ...doc.policy, "@type": "Set" };
  for (const k of ["permission", "prohibition", "obligation"])
    if (Array.isArray(policy[k]) && (policy[k] as unknown[]).length === 0) delete policy[k];
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@id": doc["@id"],
    "@type": "PolicyDefinition",
    policy,
  };
}

/** A connector policy definition as an OdrlPolicy. */
export function fromConnector(raw: Record<string, unknown>): OdrlPolicyDocument {
  const p = isObject(raw.policy) ? raw.policy : isObject(raw["edc:policy"]) ? raw["edc:policy"] : {};
  const { "@context": _c, ...policy } = p;
  const t = policy["@type"] ?? policy["odrl:type"];
  const type = typeof t === "string" ? t.replace(/^odrl:/, "") : "Set";
  const rules = (k: string) => {
    const v = policy[k] ?? policy[`odrl:${k}`];
    return Array.isArray(v) ? (v as Record<string, unknown>[]) : isObject(v) ? [v] : [];
  };
  return {
    "@id": String(raw["@id"]),
    "@type": "PolicyDefinition",
    policy: {
      ...policy,
      "@type": type,
      permission: rules("permission"),
      prohibition: rules("prohibition"),
      obligation: rules("obligation"),
    },
  };
}
