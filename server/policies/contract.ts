import { z } from "zod";
import type { Contracts } from "../http/contract";
import {
  created,
  fails,
  idField,
  NO_CONTENT,
  ok,
  optionalId,
  refusals,
  requiredText,
} from "../http/contract-fields";
import { effectiveScopeSchema } from "./scope";
import {
  listedPolicy,
  POLICY_FIELDS_REQUIRED,
  POLICY_ID_REQUIRED,
  POLICY_UPDATE_FIELDS_REQUIRED,
} from "./policy-document";

/**
 * The declarations of the ODRL policy routes (server/http/contract.ts). participantId and policyId are
 * identifiers (ids.ts), checked before anything reaches the connector: a 100 kB participantId is a 400
 * here, not the connector's 431 answered 502 (issue 39).
 */

const policy = z.looseObject({}).describe("an ODRL policy (Set, Offer or Agreement)");

const UPSTREAM = fails("The connector failed (502)");
/** the ODRL 2.2 checks of policy-document.ts, past the body's shape */
const INVALID_ODRL = refusals("Invalid ODRL 2.2 policy: <problems>");

/** the queries and bodies the handlers read parsed (ctx.input) */
export const policyQueries = {
  list: z
    .object({
      participantId: optionalId("participantId"),
      policyId: optionalId("policyId").describe("one policy; needs participantId"),
    })
    .superRefine((q, ctx) => {
      if (q.policyId?.trim() && !q.participantId?.trim())
        ctx.addIssue({
          code: "custom",
          path: ["participantId"],
          message: "participantId is required with policyId",
        });
    }),
  remove: z.object({
    policyId: idField("policyId", POLICY_ID_REQUIRED),
    participantId: optionalId("participantId"),
  }),
};

/** the spec's text when a field or the policy is missing, then each field as an identifier (ids.ts) */
function policyBody<K extends string>(ids: readonly K[], missing: string) {
  const each = <T>(field: (name: K) => T) =>
    Object.fromEntries(ids.map((name) => [name, field(name)])) as Record<K, T>;
  return z
    .looseObject({ ...each(() => requiredText(missing)), policy: z.unknown().optional() })
    .refine((b) => b.policy !== undefined && b.policy !== null, { message: missing, path: ["policy"] })
    .and(z.looseObject({ ...each((name) => idField(name)), policy }));
}
export const policyBodies = {
  create: policyBody(["participantId"], POLICY_FIELDS_REQUIRED),
  update: policyBody(["policyId", "participantId"], POLICY_UPDATE_FIELDS_REQUIRED),
};

export const policyContract: Contracts = {
  "GET /api/admin/policies": {
    query: policyQueries.list,
    answers: {
      400: refusals("participantId is required with policyId"),
      200: ok(z.union([z.array(listedPolicy), listedPolicy]), "The policies, or with policyId the one"),
      404: fails("No such policy"),
      502: UPSTREAM,
    },
  },
  "POST /api/admin/policies": {
    body: policyBodies.create,
    answers: {
      400: INVALID_ODRL,
      201: created(listedPolicy),
      404: fails("Unknown participant context"),
      409: fails("A policy with this @id exists already"),
      502: UPSTREAM,
    },
  },
  "PUT /api/admin/policies": {
    body: policyBodies.update,
    answers: {
      400: INVALID_ODRL,
      200: ok(listedPolicy),
      404: fails("No such policy"),
      409: fails("Changed meanwhile"),
      502: UPSTREAM,
    },
  },
  "DELETE /api/admin/policies": {
    query: policyQueries.remove,
    answers: {
      204: NO_CONTENT,
      // which participants hold a policy id is the connector's to know, not a schema's (0082)
      400: refusals("Policy <policyId> exists for several participants <rest>"),
      404: fails("No such policy"),
      409: fails("In use"),
      502: UPSTREAM,
    },
  },
  "GET /api/odrl/scope": { answers: { 200: ok(effectiveScopeSchema) } },
};
