import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "../../server/auth/user";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * A patient who signed in under a username that is no built-in persona's (a Keycloak account, say
 * `maria.schmidt`) and acted is named to the access body by their record's pseudonym, as a persona is,
 * not by the username (data minimisation, server/privacy/policy.ts; the audit view,
 * server/privacy/audit-view.ts). Before, only persona usernames were recognised as patients.
 */
let server: TestServer;
let admin: Signed;
let regulator: Signed;
beforeAll(async () => {
  server = await startTestServer();
  admin = await signIn(server.url, "admin");
  regulator = await signIn(server.url, "regulator");
});
afterAll(async () => server?.close());

type Entry = { action: string; actor: string; target: string };
const entries = async (who: Signed) => {
  const res = await who.api("/api/admin/audit?action=consent.grant&limit=5");
  expect(res.status).toBe(200);
  return (await res.json()) as Entry[];
};

describe("a patient's own username in the audit log", () => {
  it("is shown to the access body as their record's pseudonym, and to the operator as written", async () => {
    const maria: SessionUser = {
      sub: "kc-5f0c",
      username: "maria.schmidt",
      name: "Maria Schmidt",
      roles: ["PATIENT"],
      organisation: "",
      patientId: "patient-000003",
    };
    // her sign-in (as the OIDC callback makes it), then an action of hers on record
    await server.services.sessions.create(maria, undefined);
    await server.services.audit.append({
      action: "consent.grant",
      actor: "maria.schmidt",
      target: "patient-000003/approval-y",
      kind: "consent",
    });

    const [asWritten] = await entries(admin);
    expect(asWritten).toMatchObject({ actor: "maria.schmidt", target: "patient-000003/approval-y" });
    const [shown] = await entries(regulator);
    const pseudonym = shown!.target.split("/")[0]!;
    expect(pseudonym).toMatch(/^patient-x/);
    expect(shown!.actor).toBe(pseudonym);
    // and a search for her username finds nothing the access body could tie to her
    const res = await regulator.api("/api/admin/audit?q=maria.schmidt");
    expect(await res.json()).toEqual([]);
  });
});
