import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, ok, refusals } from "../http/contract-fields";
import { fhirBundle, fhirResource } from "./fhir";
import { observationSchema } from "./observations";

/**
 * The declarations of the companion app's routes (server/http/contract.ts). Their bodies are signed by
 * the device (the signature covers the bytes as sent), so the service reads and checks them itself.
 */

const TOO_MANY = fails("Too many pairings or accounts from this client (Retry-After)");
const text = z.string();
const when = text.nullable();
const count = z.number().int();
const device = z.object({
  deviceId: text,
  name: text,
  platform: text.nullable(),
  status: z.enum(["active", "revoked"]),
  pairedAt: when,
  lastSeenAt: when,
  revokedAt: when,
  createdAt: text,
});
/** how the app signs its requests (credentials.ts) */
const credential = z.object({
  scheme: z.literal("Device"),
  typ: text,
  alg: z.literal("ES256"),
  kid: text,
  claims: z
    .object({ htm: text, htu: text, iat: text, jti: text, bh: text })
    .describe("each claim, explained"),
  maxAgeSeconds: count,
  clockToleranceSeconds: count,
});
const syncCounts = { added: count, updated: count, unchanged: count, removed: count };
/** the attestation's own checks, past its shape (credentials.ts) */
const ATTESTATION = refusals("attestation is not a JWS<rest>");
/** a compact JWS (credentials.ts `verifyAttestation`) */
const JWS = z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/);

/** a LOINC code, optionally as a FHIR token of its system (observations.ts LOINC_CODE, ASCII digits) */
const LOINC_TOKEN = "(?:http://loinc\\.org\\|)?[0-9]{1,7}-[0-9]";
/** GET /api/patient/observations's `code`: LOINC tokens, comma-separated; an empty item is no code */
const LOINC_CODES = new RegExp(`^(?:${LOINC_TOKEN})?(?:,(?:${LOINC_TOKEN})?)*$`);

/** a day or an instant (date-time with Z or an offset), as record.ts `dateBound` reads it */
const dayOrInstant = (name: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: `${name} must be a date (YYYY-MM-DD) or a date-time`,
    })
    .optional();

/** GET /api/patient/observations's search (FHIR search parameters); codes and dates checked by record.ts */
export const observationQuery = z.object({
  code: z
    .string()
    .regex(LOINC_CODES, {
      error: (iss) =>
        `code: "${String(iss.input)}" is not a LOINC code or a comma-separated list of them (8867-4,http://loinc.org|59408-5: no spaces)`,
    })
    .optional()
    .describe(
      "LOINC codes, comma-separated, each optionally `http://loinc.org|`-prefixed (FHIR token search)",
    ),
  from: dayOrInstant("from").describe("the earliest day (YYYY-MM-DD) or date-time (with its offset)"),
  to: dayOrInstant("to").describe("the latest day (YYYY-MM-DD) or date-time (with its offset)"),
  source: z
    .enum(["all", "self", "holder"], { error: "source must be all, self or holder" })
    .optional()
    .describe("self-measured, from the data holders, or all (default)"),
});
export type ObservationQuery = z.infer<typeof observationQuery>;

export const patientAppContract: Contracts = {
  "POST /api/app-accounts/challenge": {
    answers: {
      201: created(
        z.object({
          nonce: text,
          expiresAt: text,
          audience: text,
          attestation: z.object({ typ: text, alg: z.literal("ES256") }),
        }),
      ),
      429: TOO_MANY,
    },
  },
  "POST /api/app-accounts": {
    body: z
      .looseObject({ attestation: JWS.describe("ES256 over the challenge nonce, signed by the device key") })
      .describe("the device attestation"),
    bodyParsedBy: "handler",
    answers: {
      201: created(
        z.object({
          accountId: text,
          status: z.literal("unpaired"),
          keyThumbprint: text.describe("the device key's JWK thumbprint"),
          createdAt: text,
          credential,
        }),
      ),
      400: ATTESTATION,
      409: fails("Already registered"),
      429: TOO_MANY,
    },
  },
  "POST /api/patient/app-pairing": {
    answers: {
      201: created(
        z.object({
          pairingId: text,
          code: text.describe("the code to type into the app"),
          qr: text.describe("the pairing link as a QR code (a data: URL)"),
          pairingLink: text,
          expiresAt: text,
          state: z.literal("pending"),
        }),
      ),
      429: TOO_MANY,
    },
  },
  "GET /api/patient/app-pairing/:pairingId": {
    answers: {
      200: ok(
        z.object({
          pairingId: text,
          state: z.enum(["pending", "completed", "expired"]),
          createdAt: text,
          expiresAt: text,
          completedAt: when,
          device: device.nullable(),
        }),
      ),
      404: fails("No such pairing"),
    },
  },
  "GET /api/patient/app-devices": {
    query: z.object({ include: z.string().optional().describe("`removed`: removed devices too") }),
    answers: { 200: ok(z.object({ devices: z.array(device) })) },
  },
  "POST /api/patient/app-devices": {
    body: z
      .looseObject({ code: z.string().regex(/\S/), attestation: JWS.describe("ES256 over the pairing code") })
      .describe("the pairing code and the device's key, signed"),
    bodyParsedBy: "handler",
    answers: {
      201: created(
        device.extend({
          accountId: text,
          pairingId: text,
          patient: z.object({ id: text, name: text.optional() }),
          credential,
        }),
      ),
      400: ATTESTATION,
      404: fails("No such pairing"),
      409: fails("The pairing is used or expired"),
      429: TOO_MANY,
    },
  },
  "DELETE /api/patient/app-devices/:deviceId": {
    answers: {
      200: ok(z.object({ deviceId: text, status: z.literal("revoked"), revokedAt: text })),
      404: fails("No such device"),
    },
  },
  "GET /api/patient/app/record": { answers: { 200: ok(fhirBundle, "A FHIR R4 Bundle") } },
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
      201: created(z.object({ created: count, observations: z.array(fhirResource) })),
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
      200: ok(fhirBundle, "A FHIR R4 searchset Bundle"),
      400: refusals(
        'code: "<code>" is not a LOINC code<rest>',
        "<from or to> must be a date (YYYY-MM-DD) or a date-time",
        "from must not be after to",
      ),
    },
  },
  "POST /api/patient/ehr-sync": {
    answers: {
      200: ok(
        z.object({
          patientId: text,
          syncedAt: text,
          firstSync: z.boolean(),
          changed: z.boolean(),
          holders: z.array(z.object({ holder: text, name: text, did: text.optional(), ...syncCounts })),
          totals: z.object(syncCounts),
          changes: z
            .array(z.object({ key: text, change: z.enum(["added", "updated", "removed"]), holder: text }))
            .describe("the first 200"),
        }),
      ),
      502: fails("A data holder failed"),
    },
  },
  "DELETE /api/patient/app/account": {
    answers: {
      200: ok(
        z.object({
          erasedAt: text,
          legalBasis: text,
          scope: text,
          erased: z.object({
            appAccounts: count,
            devices: z.array(device.pick({ deviceId: true, name: true, status: true })),
            deviceCredentials: count,
            selfMeasuredObservations: count,
            pairings: count,
            requestTokenIds: count,
            syncLedgerEntries: count,
          }),
          retained: z.array(text).describe("what is kept, and why"),
        }),
      ),
    },
  },
};
