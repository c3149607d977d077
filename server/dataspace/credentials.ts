import { z } from "zod";
import { randomUUID } from "node:crypto";
import { badGateway, notFound, serviceUnavailable } from "../http/errors";
import { describeUpstream } from "./failures";
import { operationDeadline, record, type DataspaceRuntime } from "./runtime";
import { isNotFound } from "./upstream-http";
import type { CredentialDefinition } from "./upstream-schemas";
import { invalidField } from "../http/field-errors";

/**
 * Credential operations over the issuer service and the identity hub, for the credential views
 * and routes: the issuer's definitions, a holder-initiated issuance (DCP), and revocation.
 */

export async function listCredentialDefinitions(rt: DataspaceRuntime): Promise<CredentialDefinition[]> {
  if (!rt.issuer) throw serviceUnavailable("No issuer service is configured (ISSUER_URL)");
  try {
    // no deadline armed per request: the read has its own time-out (read-cache.ts)
    return await rt.issuer.listCredentialDefinitions();
  } catch (e) {
    throw badGateway("Failed to fetch credential definitions", describeUpstream(e));
  }
}

export const issuanceStartedSchema = z.object({
  holderPid: z.string().describe("the issuance process's id at the holder's identity hub"),
  participantContextId: z.string(),
  credentialType: z.string(),
  issuerDid: z.string(),
  status: z.literal("REQUESTED"),
});
export type IssuanceStarted = z.infer<typeof issuanceStartedSchema>;

/** Asks the participant's identity hub to request a credential of `credentialType` from the issuer. */
export async function requestCredential(
  rt: DataspaceRuntime,
  participantContextId: string,
  credentialType: string,
  actor = "system",
): Promise<IssuanceStarted> {
  if (!rt.identityHub || !rt.issuer || !rt.issuerDid) {
    throw serviceUnavailable(
      "Credential issuance needs an identity hub and an issuer (IDENTITY_HUB_URL, ISSUER_URL)",
    );
  }
  const definitions = await listCredentialDefinitions(rt);
  const def = definitions.find((d) => d.credentialType === credentialType || d.id === credentialType);
  if (!def) throw invalidField("credentialType", `The issuer offers no credential of type ${credentialType}`);
  const holderPid = randomUUID();
  try {
    await rt.identityHub.requestCredentials(participantContextId, {
      issuerDid: rt.issuerDid,
      holderPid,
      credentials: [
        {
          format: typeof def.format === "string" ? def.format : "VC1_0_JWT",
          type: def.credentialType,
          id: def.id,
        },
      ],
    });
  } catch (e) {
    await record(rt, {
      action: "credential.request",
      actor,
      target: `${participantContextId}: ${credentialType}`,
      outcome: "failure",
    });
    if (isNotFound(e)) throw notFound(`Participant ${participantContextId} not found`);
    throw badGateway("Failed to request the credential", describeUpstream(e));
  }
  await record(rt, {
    action: "credential.request",
    actor,
    target: `${participantContextId}: ${credentialType} (${holderPid})`,
    outcome: "success",
  });
  return {
    holderPid,
    participantContextId,
    credentialType: def.credentialType,
    issuerDid: rt.issuerDid,
    status: "REQUESTED",
  };
}

/** the 404 of a revocation (DELETE /api/credentials/{id}) of a credential the issuer has not issued */
export const CREDENTIAL_NOT_FOUND = "Credential not found";

export async function revokeCredential(
  rt: DataspaceRuntime,
  credentialId: string,
  actor = "system",
): Promise<void> {
  if (!rt.issuer) throw serviceUnavailable("No issuer service is configured (ISSUER_URL)");
  try {
    await rt.issuer.revokeCredential(credentialId, operationDeadline(rt));
  } catch (e) {
    await record(rt, { action: "credential.revoke", actor, target: credentialId, outcome: "failure" });
    if (isNotFound(e)) throw notFound(CREDENTIAL_NOT_FOUND);
    throw badGateway("Failed to revoke the credential", describeUpstream(e));
  }
  await record(rt, { action: "credential.revoke", actor, target: credentialId, outcome: "success" });
}
