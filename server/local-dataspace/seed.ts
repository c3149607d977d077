import { ORGANISATIONS } from "../auth/personas";
import { offerDefinitionId, offerSelector, termsProperties, type AssetTerms } from "../dataspace-protocol";
import type { LocalContext } from "./context";
import { CREDENTIAL_TYPES, issueOnboardingCredential } from "./issuer";
import type {
  AssetRecord,
  CellRecord,
  ContractDefinitionRecord,
  CredentialDefinitionRecord,
  DataspaceProfileRecord,
  Json,
  ParticipantProfileRecord,
  ParticipantRecord,
  PolicyDefinitionRecord,
  TenantRecord,
} from "./models";

/**
 * The first-start content of the local dataspace: the five organisations as tenants with
 * ACTIVATED participant contexts and `did:web` identities, the data holders' assets, policies and
 * contract definitions (so that provider catalogues have offers), one cell and dataspace profile,
 * the issuer's credential definitions and each organisation's EHDS participant credential.
 * Deterministic ids; runs once (the store remembers).
 */

export const LOCAL_CELL_ID = "cell-local-1";
export const LOCAL_PROFILE_ID = "profile-ehds-health";
export const ACCESS_POLICY_ID = "policy-dataspace-members";
export const CONTRACT_POLICY_ID = "policy-secondary-use";

/** a data holder's demonstration asset, with its terms (what it is drawn from and discloses) as its metadata */
interface SeedAsset {
  id: string;
  name: string;
  description: string;
  contenttype: string;
  terms: AssetTerms;
}

const HOLDER_ASSETS: Record<string, SeedAsset[]> = {
  "alphaklinik-berlin": [
    {
      id: "fhir-cohort-bundle",
      name: "FHIR R4 diabetes cohort bundle",
      description:
        "Pseudonymised FHIR R4 bundle of the type 2 diabetes cohort (Patient, Condition, Observation, MedicationRequest).",
      contenttype: "application/fhir+json",
      terms: { datasets: ["dataset-alphaklinik-diabetes"], disclosure: "pseudonymised" },
    },
    {
      id: "omop-cohort-statistics",
      name: "OMOP CDM cohort statistics",
      description: "Aggregated OMOP CDM v5.4 counts per condition and drug exposure.",
      contenttype: "application/json",
      terms: {
        datasets: ["dataset-alphaklinik-diabetes", "dataset-alphaklinik-ehr"],
        disclosure: "aggregate",
      },
    },
  ],
  lmc: [
    {
      id: "fhir-patient-everything",
      name: "FHIR R4 Patient/$everything export",
      description: "Complete pseudonymised FHIR R4 records of consenting patients.",
      contenttype: "application/fhir+json",
      terms: { datasets: ["dataset-lmc-ehr"], disclosure: "pseudonymised" },
    },
  ],
};

/** the issuer's credential definitions: JWT-VCs without rules, in the issuer's participant context */
const CREDENTIAL_DEFINITIONS = [
  {
    id: "credential-definition-ehds-participant",
    credentialType: CREDENTIAL_TYPES.participant,
    jsonSchema: JSON.stringify({ type: "object", required: ["organisation", "ehdsParticipantType"] }),
    jsonSchemaUrl: "https://w3id.org/ehds/credentials/participant/v1",
    validity: 31_536_000,
    mappings: [
      { input: "organisation", output: "credentialSubject.organisation", required: true },
      { input: "ehdsParticipantType", output: "credentialSubject.ehdsParticipantType", required: true },
    ],
  },
  {
    id: "credential-definition-data-processing-purpose",
    credentialType: CREDENTIAL_TYPES.purpose,
    jsonSchema: JSON.stringify({ type: "object", required: ["purpose", "legalBasis"] }),
    jsonSchemaUrl: "https://w3id.org/ehds/credentials/purpose/v1",
    validity: 15_552_000,
    mappings: [{ input: "purpose", output: "credentialSubject.purpose", required: true }],
  },
  {
    id: "credential-definition-data-quality-label",
    credentialType: CREDENTIAL_TYPES.quality,
    jsonSchema: JSON.stringify({ type: "object", required: ["qualityLabel"] }),
    jsonSchemaUrl: "https://w3id.org/ehds/credentials/quality-label/v1",
    validity: 31_536_000,
    mappings: [{ input: "qualityLabel", output: "credentialSubject.qualityLabel", required: true }],
  },
];

/**
 * A participant's first policies: who may see an offer (dataspace members) and the contract's terms (use
 * for permitted secondary use), both the single permission `use`. No contract definition: an asset is
 * offered only by one of its own, as at a new EDC connector.
 */
export function seedProviderPolicies(ctx: LocalContext, contextId: string): void {
  const now = ctx.now();
  const policy = (id: string, note: string): PolicyDefinitionRecord => ({
    "@id": id,
    "@type": "PolicyDefinition",
    policy: {
      "@type": "Set",
      permission: [{ action: "use" }],
      prohibition: [],
      obligation: [],
      "dct:description": note,
    },
    createdAt: now,
    participantContextId: contextId,
  });
  for (const [id, note] of [
    [ACCESS_POLICY_ID, "Access: participants of the dataspace"],
    [CONTRACT_POLICY_ID, "Contract: use for permitted secondary use"],
  ])
    ctx.store.put("policies", `${contextId}/${id}`, contextId, policy(id, note));
}

/**
 * A demonstration asset's offer, as the hub makes it (decision 0111): the definition `<assetId>-offer`
 * selecting the asset by its id, so that the share page lists it as the hub's and can withdraw it.
 */
function seedOffer(ctx: LocalContext, contextId: string, assetId: string): void {
  const def: ContractDefinitionRecord = {
    "@id": offerDefinitionId(assetId),
    "@type": "ContractDefinition",
    accessPolicyId: ACCESS_POLICY_ID,
    contractPolicyId: CONTRACT_POLICY_ID,
    assetsSelector: offerSelector(assetId),
    createdAt: ctx.now(),
    participantContextId: contextId,
  };
  ctx.store.put("contractdefinitions", `${contextId}/${def["@id"]}`, contextId, def);
}

export async function seedLocalDataspace(ctx: LocalContext): Promise<void> {
  if (ctx.store.setting("seeded")) return;
  const now = ctx.now();
  const iso = new Date(now).toISOString();
  ctx.store.transaction(() => {
    const cell: CellRecord = {
      id: LOCAL_CELL_ID,
      version: 0,
      state: "ACTIVE",
      stateTimestamp: iso,
      properties: { name: "Local development cell", runtime: "embedded" },
    };
    ctx.store.put("cells", cell.id, "", cell);
    const profile: DataspaceProfileRecord = {
      id: LOCAL_PROFILE_ID,
      version: 0,
      artifacts: ["dsp-2025-1", "dcp-1.0"],
      deployments: [
        {
          id: `${LOCAL_PROFILE_ID}-${LOCAL_CELL_ID}`,
          version: 0,
          state: "ACTIVE",
          stateTimestamp: iso,
          cellId: LOCAL_CELL_ID,
        },
      ],
      properties: {
        name: "EHDS health dataspace",
        protocol: "dataspace-protocol-http:2025-1",
        identity: "DCP v1.0",
      },
    };
    ctx.store.put("dataspaceprofiles", profile.id, "", profile);

    for (const def of CREDENTIAL_DEFINITIONS) {
      ctx.store.put("credentialdefinitions", def.id, ctx.issuer.contextId, {
        ...def,
        format: "VC1_0_JWT",
        rules: [],
        participantContextId: ctx.issuer.contextId,
      } satisfies CredentialDefinitionRecord);
    }

    for (const org of ORGANISATIONS) {
      const tenant: TenantRecord = {
        id: `tenant-${org.slug}`,
        version: 0,
        properties: {
          displayName: org.displayName,
          organization: org.displayName,
          role: org.role,
          ehdsParticipantType: org.role,
          country: org.country,
        },
      };
      ctx.store.put("tenants", tenant.id, "", tenant);
      const vpa = (type: string): Json => ({
        id: `${org.slug}-${type}`,
        version: 0,
        type,
        state: "ACTIVE",
        stateTimestamp: iso,
        cell,
      });
      const pp: ParticipantProfileRecord = {
        id: org.slug,
        version: 0,
        identifier: org.slug,
        tenantId: tenant.id,
        vpas: [vpa("cfm.connector"), vpa("cfm.credentialservice")],
        properties: { did: org.did, participantContextId: org.slug, dataspaceProfileIds: [LOCAL_PROFILE_ID] },
        error: false,
      };
      ctx.store.put("participantprofiles", pp.id, tenant.id, pp);
      const participant: ParticipantRecord = {
        "@id": org.slug,
        "@type": "ParticipantContext",
        identity: org.did,
        state: "ACTIVATED",
        properties: { tenantId: tenant.id },
        createdAt: now,
        stateTimestamp: now,
      };
      ctx.store.put("participants", participant["@id"], participant["@id"], participant);
      seedProviderPolicies(ctx, org.slug);
      for (const a of HOLDER_ASSETS[org.slug] ?? []) {
        const asset: AssetRecord = {
          "@id": a.id,
          "@type": "Asset",
          properties: {
            id: a.id,
            name: a.name,
            description: a.description,
            contenttype: a.contenttype,
            version: "1.0.0",
            ...termsProperties(a.terms),
          },
          privateProperties: {},
          dataAddress: {
            "@type": "DataAddress",
            type: "HttpData",
            baseUrl: `${ctx.graphBridgeUrl}/assets/${org.slug}/${a.id}`,
          },
          createdAt: now,
          participantContextId: org.slug,
        };
        ctx.store.put("assets", `${org.slug}/${a.id}`, org.slug, asset);
        seedOffer(ctx, org.slug, a.id);
      }
    }
  });
  for (const org of ORGANISATIONS) {
    await issueOnboardingCredential(ctx, {
      contextId: org.slug,
      did: org.did,
      organisation: org.displayName,
      role: org.role,
    });
  }
  ctx.store.setSetting("seeded", new Date(ctx.now()).toISOString());
}
