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
import { CREDENTIAL_FIELDS_REQUIRED, issuanceStarted, labelledDefinition, listedCredential } from "./service";

/** The declarations of the credential routes (server/http/contract.ts). */

export const credentialListQuery = z.object({ participantId: optionalId("participantId") });
/** the spec's text for a missing field first, then each as an identifier (ids.ts) */
export const credentialRequestBody = z
  .looseObject({
    participantContextId: requiredText(CREDENTIAL_FIELDS_REQUIRED),
    credentialType: requiredText(CREDENTIAL_FIELDS_REQUIRED),
  })
  .and(
    z.looseObject({
      participantContextId: idField("participantContextId"),
      credentialType: idField("credentialType"),
    }),
  );

export const credentialContract: Contracts = {
  "GET /api/credentials": {
    query: credentialListQuery,
    answers: {
      200: ok(z.array(listedCredential), "Verifiable credentials"),
      502: fails("The identity hub or issuer failed"),
    },
  },
  "GET /api/credentials/definitions": {
    answers: { 200: ok(z.array(labelledDefinition)), 502: fails("The issuer service failed") },
  },
  "POST /api/credentials/request": {
    body: credentialRequestBody,
    answers: {
      201: created(issuanceStarted, "Issuance process started"),
      // the issuer's own list (GET /api/credentials/definitions), which no schema can hold (0082)
      400: refusals("The issuer offers no credential of type <credentialType>"),
      403: fails("Not the caller's participant context"),
      404: fails("Unknown participant context or credential type"),
      502: fails("The issuer service failed"),
    },
  },
  "DELETE /api/credentials/:id": {
    answers: {
      204: NO_CONTENT,
      403: fails("A credential another organisation's participant context holds (the operator revokes any)"),
      404: fails("No such credential"),
      502: fails("The issuer service failed"),
    },
  },
};
