import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, has, ok, optionalText, refusals } from "../http/contract-fields";
import { observationSchema } from "./observations";

/**
 * The declarations of the companion app's routes (server/http/contract.ts). Their bodies are signed by
 * the device (the signature covers the bytes as sent), so the service reads and checks them itself.
 */

const TOO_MANY = fails("Too many pairings or accounts from this client (Retry-After)");
const bundle = has("resourceType", "entry");
/** the attestation's own checks, past its shape (credentials.ts) */
const ATTESTATION = refusals("attestation is not a JWS<rest>");
/** a compact JWS (credentials.ts `verifyAttestation`) */
const JWS = z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/);

/** GET /api/patient/observations's search (FHIR search parameters); codes and dates checked by record.ts */
export const observationQuery = z.object({
  code: optionalText("LOINC codes, comma-separated, each optionally `http://loinc.org|`-prefixed"),
  from: optionalText("the earliest day (YYYY-MM-DD) or date-time"),
  to: optionalText("the latest day (YYYY-MM-DD) or date-time"),
  source: z
    .enum(["all", "self", "holder"], { error: "source must be all, self or holder" })
    .optional()
    .describe("self-measured, from the data holders, or all (default)"),
});
export type ObservationQuery = z.infer<typeof observationQuery>;

export const patientAppContract: Contracts = {
  "POST /api/app-accounts/challenge": { answers: { 201: created(has("nonce")), 429: TOO_MANY } },
  "POST /api/app-accounts": {
    body: z
      .looseObject({ attestation: JWS.describe("ES256 over the challenge nonce, signed by the device key") })
      .describe("the device attestation"),
    bodyParsedBy: "handler",
    answers: {
      201: created(z.looseObject({})),
      400: ATTESTATION,
      409: fails("Already registered"),
      429: TOO_MANY,
    },
  },
  "POST /api/patient/app-pairing": { answers: { 201: created(z.looseObject({})), 429: TOO_MANY } },
  "GET /api/patient/app-pairing/:pairingId": {
    answers: { 200: ok(z.looseObject({})), 404: fails("No such pairing") },
  },
  "GET /api/patient/app-devices": {
    query: z.object({ include: z.string().optional().describe("`removed`: removed devices too") }),
    answers: { 200: ok(has("devices")) },
  },
  "POST /api/patient/app-devices": {
    body: z
      .looseObject({ code: z.string().regex(/\S/), attestation: JWS.describe("ES256 over the pairing code") })
      .describe("the pairing code and the device's key, signed"),
    bodyParsedBy: "handler",
    answers: {
      201: created(z.looseObject({})),
      400: ATTESTATION,
      404: fails("No such pairing"),
      409: fails("The pairing is used or expired"),
      429: TOO_MANY,
    },
  },
  "DELETE /api/patient/app-devices/:deviceId": {
    answers: { 200: ok(z.looseObject({})), 404: fails("No such device") },
  },
  "GET /api/patient/app/record": { answers: { 200: ok(bundle, "A FHIR R4 Bundle") } },
  "POST /api/patient/app/record": {
    body: z
      .union([
        observationSchema,
        z.looseObject({
          resourceType: z.literal("Bundle"),
          type: z.enum(["collection", "batch", "transaction"]),
          entry: z
            .array(z.looseObject({ resource: observationSchema }))
            .min(1)
            .max(100),
        }),
      ])
      .describe("FHIR Observations (a Bundle or an Observation) of the self-measurable LOINC codes"),
    bodyParsedBy: "handler",
    answers: {
      201: created(has("created", "observations")),
      400: refusals(
        "<where>.code.coding: <rest>",
        "<where>.valueQuantity<rest>",
        "<where>.effectiveDateTime<rest>",
      ),
    },
  },
  "GET /api/patient/observations": {
    query: observationQuery,
    answers: {
      200: ok(bundle, "A FHIR R4 searchset Bundle"),
      400: refusals(
        'code: "<code>" is not a LOINC code',
        "<from or to> must be a date (YYYY-MM-DD) or a date-time",
        "from must not be after to",
      ),
    },
  },
  "POST /api/patient/ehr-sync": {
    answers: { 200: ok(z.looseObject({})), 502: fails("A data holder failed") },
  },
  "DELETE /api/patient/app/account": { answers: { 200: ok(z.looseObject({})) } },
};
