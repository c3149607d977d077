import { PERSONAS, ROLES, type Persona, type Role } from "../../server/auth/personas";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../server/auth/sessions";

/**
 * The Keycloak realm the project ships (deploy/keycloak/realm.json), built from the persona table so
 * the two cannot drift: `npx tsx scripts/keycloak-realm.ts` writes the file, and
 * scripts/keycloak/realm.test.ts fails when the file is not what this function builds.
 *
 * What the hub needs of Keycloak, and where the realm puts it (docs/decisions/0047-keycloak-realm.md):
 * - the seven roles as realm roles, sent as `realm_access.roles` in the ID token (the hub reads the
 *   verified ID token only; Keycloak's own `roles` scope puts them in the access token only);
 * - the user attributes `organization`, `participant_did` and `patient_id`, declared in the user
 *   profile (Keycloak 24+ drops undeclared attributes) and sent as ID-token claims of the same names;
 * - the hub's confidential client: authorization code with PKCE S256, redirect
 *   `${HUB_PUBLIC_URL}/auth/callback`, post-logout redirect `${HUB_PUBLIC_URL}/auth/signin`, secret
 *   `${HUB_CLIENT_SECRET}`: placeholders Keycloak fills from its environment at `--import-realm`;
 *   back-channel logout to `${HUB_PUBLIC_URL}/auth/backchannel-logout`, so a session ended in Keycloak
 *   ends the hub's at once;
 * - Keycloak's session limits those of the hub's sessions (2 h idle, 12 h): the hub re-checks its
 *   sessions with the refresh token (sessions.ts), and a Keycloak session that idled out after
 *   Keycloak's default 30 minutes would end a hub session still within its own idle window;
 * - the personas as demonstration users, each password its username (as with the embedded provider).
 */

export const REALM_NAME = "ehds";
export const HUB_CLIENT_ID = "hub";
/** the user attributes the hub reads, each sent as the claim of the same name */
export const HUB_ATTRIBUTES = ["organization", "participant_did", "patient_id"] as const;

const ROLE_DESCRIPTIONS: Record<Role, string> = {
  DATA_HOLDER: "Publishes datasets and answers contract negotiations",
  DATA_USER: "Searches the catalogue, negotiates contracts and runs analyses",
  HDAB_AUTHORITY: "Access body: decides data access applications and issues data permits",
  CONNECTOR_ADMIN: "Operates the dataspace: connectors, participants, policies, audit trail",
  PATIENT: "Views their own health record and manages consent",
  TRUST_CENTER_OPERATOR: "Resolves pseudonyms and supervises secure processing sessions",
  CONNECTOR_USER_PARTICIPANT: "Uses the organisation's connector",
};

const ID_TOKEN_CLAIM = {
  "id.token.claim": "true",
  "access.token.claim": "true",
  "userinfo.token.claim": "true",
  "introspection.token.claim": "true",
};

function attributeMapper(attribute: string) {
  return {
    name: attribute,
    protocol: "openid-connect",
    protocolMapper: "oidc-usermodel-attribute-mapper",
    consentRequired: false,
    config: {
      "user.attribute": attribute,
      "claim.name": attribute,
      "jsonType.label": "String",
      ...ID_TOKEN_CLAIM,
    },
  };
}

/** Keycloak's default user profile plus the hub's attributes (read-only for the user) */
function userProfile() {
  const person = (name: string, displayName: string, validations: Record<string, unknown>) => ({
    name,
    displayName,
    validations,
    required: { roles: ["admin", "user"] },
    permissions: { view: ["admin", "user"], edit: ["admin", "user"] },
    multivalued: false,
  });
  return {
    attributes: [
      {
        name: "username",
        displayName: "${username}",
        validations: {
          length: { min: 3, max: 255 },
          "username-prohibited-characters": {},
          "up-username-not-idn-homograph": {},
        },
        permissions: { view: ["admin", "user"], edit: ["admin", "user"] },
        multivalued: false,
      },
      person("email", "${email}", { email: {}, length: { max: 255 } }),
      person("firstName", "${firstName}", { length: { max: 255 } }),
      person("lastName", "${lastName}", { length: { max: 255 } }),
      ...HUB_ATTRIBUTES.map((name) => ({
        name,
        displayName: name,
        validations: { length: { max: 255 } },
        permissions: { view: ["admin", "user"], edit: ["admin"] },
        multivalued: false,
      })),
    ],
    groups: [
      {
        name: "user-metadata",
        displayHeader: "User metadata",
        displayDescription: "Attributes, which refer to user metadata",
      },
    ],
  };
}

function demoUser(p: Persona) {
  const space = p.name.lastIndexOf(" ");
  const attributes: Record<string, string[]> = { organization: [p.organisation] };
  if (p.participantDid) attributes.participant_did = [p.participantDid];
  if (p.patientId) attributes.patient_id = [p.patientId];
  return {
    username: p.username,
    enabled: true,
    email: p.email,
    emailVerified: true,
    firstName: space > 0 ? p.name.slice(0, space) : p.name,
    lastName: space > 0 ? p.name.slice(space + 1) : p.name,
    attributes,
    credentials: [{ type: "password", value: p.username, temporary: false }],
    realmRoles: [...p.roles],
  };
}

export function keycloakRealm() {
  return {
    realm: REALM_NAME,
    displayName: "Health Dataspace Hub",
    enabled: true,
    sslRequired: "external",
    registrationAllowed: false,
    loginWithEmailAllowed: true,
    bruteForceProtected: true,
    ssoSessionIdleTimeout: SESSION_IDLE_MS / 1000,
    ssoSessionMaxLifespan: SESSION_ABSOLUTE_MS / 1000,
    roles: {
      realm: ROLES.map((name) => ({ name, description: ROLE_DESCRIPTIONS[name] })),
    },
    clients: [
      {
        clientId: HUB_CLIENT_ID,
        name: "Health Dataspace Hub",
        enabled: true,
        protocol: "openid-connect",
        publicClient: false,
        clientAuthenticatorType: "client-secret",
        secret: "${HUB_CLIENT_SECRET}",
        standardFlowEnabled: true,
        implicitFlowEnabled: false,
        directAccessGrantsEnabled: false,
        serviceAccountsEnabled: false,
        frontchannelLogout: false,
        rootUrl: "${HUB_PUBLIC_URL}",
        baseUrl: "/",
        redirectUris: ["${HUB_PUBLIC_URL}/auth/callback"],
        webOrigins: ["${HUB_PUBLIC_URL}"],
        attributes: {
          "pkce.code.challenge.method": "S256",
          "post.logout.redirect.uris": "${HUB_PUBLIC_URL}/auth/signin",
          // a session ended in Keycloak (sign-out elsewhere, an administrator's revocation) ends the hub's
          "backchannel.logout.url": "${HUB_PUBLIC_URL}/auth/backchannel-logout",
          "backchannel.logout.session.required": "true",
        },
        fullScopeAllowed: true,
        defaultClientScopes: ["basic", "profile", "email", "acr", "web-origins"],
        optionalClientScopes: [],
        protocolMappers: [
          {
            name: "realm roles",
            protocol: "openid-connect",
            protocolMapper: "oidc-usermodel-realm-role-mapper",
            consentRequired: false,
            config: {
              "claim.name": "realm_access.roles",
              "jsonType.label": "String",
              multivalued: "true",
              ...ID_TOKEN_CLAIM,
            },
          },
          ...HUB_ATTRIBUTES.map(attributeMapper),
        ],
      },
    ],
    components: {
      "org.keycloak.userprofile.UserProfileProvider": [
        {
          providerId: "declarative-user-profile",
          subComponents: {},
          config: { "kc.user.profile.config": [JSON.stringify(userProfile())] },
        },
      ],
    },
    users: PERSONAS.map(demoUser),
  };
}
