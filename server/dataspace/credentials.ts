import { z } from "zod";
import { randomUUID } from "node:crypto";
import { serviceUnavailable } from "../http/errors";
import { notFoundOr502, or502 } from "./failures";
import { audited, operationDeadline, type DataspaceRuntime } from "./runtime";
import type { CredentialDefinition } from "./upstream-schemas";
import { invalidField } from "../http/field-errors";

/**
 * Credential operations over the issuer service and the identity hub, for the credential views
 * and routes: the issuer's definitions, a holder-initiated issuance (DCP), and revocation.
 */

function issuerOf(rt: DataspaceRuntime) {
  if (!rt.issuer) throw serviceUnavailable("No issuer service is configured (ISSUER_URL)");
  return rt.issuer;
}

export async function listCredentialDefinitions(rt: DataspaceRuntime): Promise<CredentialDefinition[]> {
  const issuer = issuerOf(rt);
  // no deadline armed per request: the read has its own time-out (read-cache.ts)
  return or502(() => issuer.listCredentialDefinitions(), "Failed to fetch credential definitions");
}

export const issuanceStartedSchema = z.object({
  holderPid: z.string().describe("the issuance process's id at the holder's identity hub"),
  participantContextId: z.string(),
  credentialType: z.string(),
  issuerDid: z.string(),
  status: z.literal("REQUESTED"),
});
/** Asks the participant's identity hub to request a credential of `credentialType` from the issuer. */
export async function requestCredential(
  rt: DataspaceRuntime,
  participantContextId: string,
  credentialType: string,
  actor = "system",
): Promise<z.infer<typeof issuanceStartedSchema>> {
  const { identityHub, issuerDid } = rt;
  if (!identityHub || !rt.issuer || !issuerDid) {
    throw serviceUnavailable(
      "Credential issuance needs an identity hub and an issuer with its DID (IDENTITY_HUB_URL, ISSUER_URL, ISSUER_DID)",
    );
  }
  const definitions = await listCredentialDefinitions(rt);
  const def = definitions.find((d) => d.credentialType === credentialType || d.id === credentialType);
  if (!def) throw invalidField("credentialType", `The issuer offers no credential of type ${credentialType}`);
  const holderPid = randomUUID();
  await audited(
    rt,
    { action: "credential.request", actor, target: `${participantContextId}: ${credentialType}` },
    () =>
      identityHub.requestCredentials(participantContextId, {
        issuerDid,
        holderPid,
        credentials: [
          {
            format: typeof def.format === "string" ? def.format : "VC1_0_JWT",
            type: def.credentialType,
            id: def.id,
          },
        ],
      }),
    (e) =>
      notFoundOr502(e, `Participant ${participantContextId} not found`, "Failed to request the credential"),
    () => holderPid,
  );
  return {
    holderPid,
    participantContextId,
    credentialType: def.credentialType,
    issuerDid,
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
  const issuer = issuerOf(rt);
  await audited(
    rt,
    { action: "credential.revoke", actor, target: credentialId },
    () => issuer.revokeCredential(credentialId, operationDeadline(rt)),
    (e) => notFoundOr502(e, CREDENTIAL_NOT_FOUND, "Failed to revoke the credential"),
  );
}
