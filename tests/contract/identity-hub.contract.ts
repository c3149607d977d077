import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { encodeContextId } from "../../server/dataspace-protocol";
import { createIdentityHubClient, type IdentityHubClient } from "../../server/dataspace/identity-hub-client";
import type { UpstreamClientOptions } from "../../server/dataspace/upstream-http";
import { apiKeyContract } from "./api-key.contract";

/**
 * What the hub's identity hub client counts on from the identity API of a holder's identity hub
 * (`/v1alpha/participants/{context}/credentials`, EDC IdentityHub's VerifiableCredentialsApiController
 * and its credential request): a participant's credentials as VerifiableCredentialResource records, each
 * under its credential's id (CredentialWriterImpl) and held by the participant; a holder-initiated request
 * to an issuer (DCP) after which the participant holds one credential more; states as VcStatus codes; none
 * listed and 404 for a request in a context it does not have; the API key authentication of api-key.contract.ts.
 */
export interface IdentityHubTarget {
  /** the hub's identity hub client as the hub is configured: its URL and API key (an admin's) */
  options: UpstreamClientOptions;
  /** a participant context that holds at least one credential */
  holder: string;
  /** an issuer that issues `credential` to `holder` */
  issuerDid: string;
  /** a credential definition of that issuer */
  credential: { id: string; type: string };
}

export function identityHubContract(setup: () => Promise<IdentityHubTarget>): void {
  let target: IdentityHubTarget;
  let hub: IdentityHubClient;
  beforeAll(async () => {
    target = await setup();
    hub = createIdentityHubClient(target.options);
  });
  const subjectOf = (c: Awaited<ReturnType<IdentityHubClient["listCredentials"]>>[number]) => {
    const s = c.verifiableCredential.credential.credentialSubject;
    return (Array.isArray(s) ? s[0] : s)?.id;
  };

  apiKeyContract("identity hub", () => ({
    options: target.options,
    call: (options) =>
      createIdentityHubClient({ ...target.options, ...options }).listCredentials(target.holder),
    request: (headers) =>
      fetch(`${target.options.baseUrl}/v1alpha/participants/${encodeContextId(target.holder)}/credentials`, {
        headers,
      }),
  }));

  it("lists a participant's credentials, each under its credential's id and held by the participant", async () => {
    const held = await hub.listCredentials(target.holder);
    expect(held.length).toBeGreaterThan(0);
    for (const c of held) {
      expect(String(c.verifiableCredential.credential.id)).toBe(c.id);
      expect(c.holderId).toBeTruthy();
      expect(subjectOf(c)).toBe(c.holderId);
    }
  });

  it("asks the issuer for a credential (DCP): the participant then holds one more, of that type", async () => {
    const before = await hub.listCredentials(target.holder);
    const { id, type } = target.credential;
    await hub.requestCredentials(target.holder, {
      issuerDid: target.issuerDid,
      holderPid: randomUUID(),
      credentials: [{ format: "VC1_0_JWT", type, id }],
    });
    const known = new Set(before.map((c) => c.id));
    await expect
      .poll(async () => (await hub.listCredentials(target.holder)).filter((c) => !known.has(c.id)), {
        timeout: 20_000,
        interval: 250,
      })
      .toEqual([
        expect.objectContaining({
          verifiableCredential: expect.objectContaining({
            credential: expect.objectContaining({ type: expect.arrayContaining([type]) }),
          }),
        }),
      ]);
  });

  it("states a credential's state as IdentityHub's VcStatus code (500: issued), read by its name", async () => {
    const res = await fetch(
      `${target.options.baseUrl}/v1alpha/participants/${encodeContextId(target.holder)}/credentials`,
      { headers: { "x-api-key": target.options.apiKey! } },
    );
    const raw = (await res.json()) as { state: unknown }[];
    expect(raw.map((c) => c.state)).toContain(500);
    expect((await hub.listCredentials(target.holder)).map((c) => c.state)).toContain("ISSUED");
  });

  it("lists no credentials in a participant context it does not have (200 [])", async () => {
    expect(await hub.listCredentials(`no-such-context-${randomUUID()}`)).toEqual([]);
  });

  it("answers a request in a participant context it does not have with 404", async () => {
    const request = {
      issuerDid: target.issuerDid,
      holderPid: randomUUID(),
      credentials: [{ format: "VC1_0_JWT", ...target.credential }],
    };
    await expect(hub.requestCredentials("no-such-context", request)).rejects.toMatchObject({
      upstream: "identity hub",
      failure: "status",
      status: 404,
    });
  });
}
