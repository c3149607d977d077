import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, has, ok } from "../http/contract-fields";

/**
 * The declarations of the companion app's routes (server/http/contract.ts). Their bodies are signed by
 * the device (the signature covers the bytes as sent), so the service reads and checks them itself.
 */

const TOO_MANY = fails("Too many pairings or accounts from this client (Retry-After)");
const bundle = has("resourceType", "entry");

export const patientAppContract: Contracts = {
  "POST /api/app-accounts/challenge": { answers: { 201: created(has("nonce")), 429: TOO_MANY } },
  "POST /api/app-accounts": {
    body: z.looseObject({}).describe("the device attestation"),
    bodyParsedBy: "handler",
    answers: { 201: created(z.looseObject({})), 409: fails("Already registered"), 429: TOO_MANY },
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
    body: z.looseObject({}).describe("the pairing code and the device's key, signed"),
    bodyParsedBy: "handler",
    answers: {
      201: created(z.looseObject({})),
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
    body: z.looseObject({}).describe("FHIR Observations (a Bundle or an Observation)"),
    bodyParsedBy: "handler",
    answers: { 201: created(has("created", "observations")) },
  },
  "GET /api/patient/observations": {
    answers: {
      200: ok(bundle, "A FHIR R4 searchset Bundle"),
      400: fails("A filter (source, code, from, to …) the service does not accept"),
    },
  },
  "POST /api/patient/ehr-sync": {
    answers: { 200: ok(z.looseObject({})), 502: fails("A data holder failed") },
  },
  "DELETE /api/patient/app/account": { answers: { 200: ok(z.looseObject({})) } },
};
