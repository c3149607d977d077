import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HUB_ATTRIBUTES, keycloakRealm } from "./realm";
import { PERSONAS, ROLES } from "../../server/auth/personas";

/** the shipped realm file is what the persona table builds (regenerate: npx tsx scripts/keycloak-realm.ts) */
describe("deploy/keycloak/realm.json", () => {
  const shipped = JSON.parse(readFileSync("deploy/keycloak/realm.json", "utf8"));

  it("is the realm the persona table builds", () => {
    expect(shipped).toEqual(keycloakRealm());
  });

  it("holds the seven roles, every persona with its roles and attributes, and the hub client's mappers", () => {
    expect(shipped.roles.realm.map((r: { name: string }) => r.name)).toEqual([...ROLES]);
    for (const p of PERSONAS) {
      const u = shipped.users.find((x: { username: string }) => x.username === p.username);
      expect(u, p.username).toBeDefined();
      expect(u.realmRoles).toEqual(p.roles);
      expect(u.attributes.organization).toEqual([p.organisation]);
      expect(u.attributes.participant_did).toEqual(p.participantDid ? [p.participantDid] : undefined);
      expect(u.attributes.patient_id).toEqual(p.patientId ? [p.patientId] : undefined);
    }
    const hub = shipped.clients.find((c: { clientId: string }) => c.clientId === "hub");
    expect(hub.attributes["pkce.code.challenge.method"]).toBe("S256");
    const idTokenClaims = hub.protocolMappers
      .filter((m: { config: Record<string, string> }) => m.config["id.token.claim"] === "true")
      .map((m: { config: Record<string, string> }) => m.config["claim.name"]);
    expect(idTokenClaims).toEqual(["realm_access.roles", ...HUB_ATTRIBUTES]);
    const profile = JSON.parse(
      shipped.components["org.keycloak.userprofile.UserProfileProvider"][0].config[
        "kc.user.profile.config"
      ][0],
    );
    for (const a of HUB_ATTRIBUTES)
      expect(
        profile.attributes.some((x: { name: string }) => x.name === a),
        a,
      ).toBe(true);
  });
});
