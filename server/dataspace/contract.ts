import { z } from "zod";
import type { Contracts } from "../http/contract";
import {
  created,
  fails,
  idField,
  ok,
  optionalId,
  httpUrlField,
  nameField,
  optionalText,
  presentFields,
  refusals,
  requiredText,
} from "../http/contract-fields";
import { ROLES } from "../auth/personas";

import { ASSET_FIELDS_REQUIRED, DATASET_ID, DATASETS_TEXT, MAX_DATASETS } from "./assets";
import { DISCLOSURES, TRANSFER_TYPES } from "../dataspace-protocol";
import {
  NEGOTIATION_FIELDS_REQUIRED,
  OFFER_ID_REQUIRED,
  PARTICIPANT_ID_REQUIRED,
  PROVIDER_DID_REQUIRED,
} from "./negotiations";
import {
  credentialSchema,
  onboardingResult,
  PARTICIPANT_FIELDS_REQUIRED,
  participantSchema,
} from "./participants";
import { catalogSchema } from "./upstream-schemas";
import { taskSchema } from "./tasks";
import { TRANSFER_FIELDS_REQUIRED } from "./transfers";

/**
 * The declarations of the dataspace routes (server/http/contract.ts): what the dispatcher parses before
 * the handlers in handlers.ts, and what the OpenAPI document says. Required fields first (the spec's
 * texts), then their syntax (ids.ts): `allOf` of the two stages, as the handlers check them.
 */

const participantQuery = idField("participantId", PARTICIPANT_ID_REQUIRED);
/** the query of the routes that read in one participant context */
export const byParticipant = z.object({ participantId: participantQuery });
export const assetsQuery = z.object({ participantId: optionalId("participantId") });
const upstream = (what: string) => fails(`${what}: the connector or tenant manager failed (spec's 502 text)`);
const ACTING = fails("The participant context is not the caller's organisation's (403)");

export const negotiationList = z
  .object({
    participantId: participantQuery,
    catalog: optionalText("`true`: the provider catalogue instead of the list"),
    providerDid: optionalId("providerDid").describe("required when catalog=true"),
    counterPartyAddress: optionalText(
      "the provider's DSP address (catalog=true); none: the one found for providerDid (the own connector's context, else the participant directory's catalogue address without /catalog/request)",
    ),
  })
  .superRefine((q, ctx) => {
    if (q.catalog === "true" && !q.providerDid?.trim())
      ctx.addIssue({ code: "custom", path: ["providerDid"], message: PROVIDER_DID_REQUIRED });
  });

export const negotiationBody = z
  .looseObject({
    participantId: requiredText(NEGOTIATION_FIELDS_REQUIRED),
    counterPartyAddress: requiredText(NEGOTIATION_FIELDS_REQUIRED),
    assetId: requiredText(NEGOTIATION_FIELDS_REQUIRED),
    offerId: z.string().optional().describe("required unless policyId is given"),
    policyId: z.string().optional(),
    counterPartyId: optionalId("counterPartyId"),
    providerDid: optionalId("providerDid"),
  })
  .refine((b) => !!b.offerId?.trim() || !!b.policyId?.trim(), {
    message: OFFER_ID_REQUIRED,
    path: ["offerId"],
  })
  .meta(presentFields("anyOf", "offerId", "policyId"))
  .and(
    z.looseObject({
      participantId: idField("participantId"),
      assetId: idField("assetId"),
      counterPartyAddress: httpUrlField("counterPartyAddress"),
    }),
  );

export const transferBody = z
  .looseObject({
    participantId: requiredText(TRANSFER_FIELDS_REQUIRED),
    contractId: requiredText(TRANSFER_FIELDS_REQUIRED),
    counterPartyAddress: requiredText(TRANSFER_FIELDS_REQUIRED),
    assetId: z.string().optional(),
    transferType: z
      .enum(TRANSFER_TYPES, { error: `transferType must be one of ${TRANSFER_TYPES.join(", ")}` })
      .optional()
      .describe("default HttpData-PULL"),
  })
  .and(
    z.looseObject({
      participantId: idField("participantId"),
      assetId: optionalId("assetId"),
      counterPartyAddress: httpUrlField("counterPartyAddress"),
    }),
  );

export const assetBody = z
  .looseObject({
    participantId: requiredText(ASSET_FIELDS_REQUIRED),
    assetId: requiredText(ASSET_FIELDS_REQUIRED),
    name: requiredText(ASSET_FIELDS_REQUIRED),
    description: z.string().optional(),
    contentType: z.string().optional(),
    dataAddress: z.looseObject({}).optional().describe("an object with @type, type and baseUrl"),
    // the asset's terms, metadata of the asset at the connector (decision 0065), as assets.ts
    // parseAssetTerms reads them, with its texts (0082)
    disclosure: z
      .enum(DISCLOSURES as [string, ...string[]], {
        error: `disclosure must be one of ${DISCLOSURES.join(", ")}`,
      })
      .optional()
      .describe("aggregate (default) or pseudonymised"),
    datasets: z
      .array(z.string().regex(DATASET_ID, DATASETS_TEXT), { error: DATASETS_TEXT })
      .min(1, DATASETS_TEXT)
      .max(MAX_DATASETS, DATASETS_TEXT)
      .optional()
      .describe(
        "the catalogue datasets the asset is drawn from, held by its participant (default: the dataset of its name; 400 otherwise, decision 0096)",
      ),
    policyId: optionalId("policyId").describe(
      "a policy definition of the participant at its connector: the asset is then offered under it, by the contract definition `<assetId>-offer` (decision 0108); absent: registered only, not offered",
    ),
  })
  .and(z.looseObject({ participantId: idField("participantId"), assetId: idField("assetId") }));

/**
 * The connector's answers (EDC Management API v3, JSON-LD, compacted), passed on as the connector
 * sends them: the fields the hub and its local dataspace send, typed; a real EDC connector adds more
 * (its version's fields, extensions' properties), which the hub does not control, so these stay open.
 */
const opt = <T extends z.ZodType>(t: T) => t.optional();
const context = z.record(z.string(), z.unknown()).describe("a JSON-LD context object");
const jsonLd = {
  "@id": z.string(),
  "@type": opt(z.string()),
  "@context": opt(z.union([z.string(), z.array(z.union([z.string(), context])), context])),
  createdAt: opt(z.number().describe("milliseconds since 1970")),
};
const idAnswer = z.looseObject(jsonLd).describe("the connector's IdResponse: the new entity's id");
const processFields = {
  ...jsonLd,
  state: z.string().describe("the process state, e.g. REQUESTED, FINALIZED, STARTED, COMPLETED, TERMINATED"),
  stateTimestamp: opt(z.number()),
  type: opt(z.string().describe("CONSUMER or PROVIDER")),
  counterPartyAddress: opt(z.string()),
  counterPartyId: opt(z.string()),
  protocol: opt(z.string()),
  correlationId: opt(z.string()),
  assetId: opt(z.string()),
  errorDetail: opt(z.string()),
  participantContextId: opt(z.string()),
  callbackAddresses: opt(
    z.array(
      z.looseObject({ uri: z.string(), events: opt(z.array(z.string())), transactional: opt(z.boolean()) }),
    ),
  ),
};
const negotiation = z.looseObject({
  ...processFields,
  offerId: opt(z.string()),
  contractAgreementId: opt(z.string()),
  policy: opt(z.looseObject({}).describe("the ODRL offer or agreement")),
  permitId: opt(z.string().describe("the data permit this negotiation acts under")),
});
const transfer = z.looseObject({
  ...processFields,
  contractId: opt(z.string()),
  transferType: opt(z.string()),
  dataDestination: opt(z.looseObject({ type: z.string() }).describe("where the data goes (EDC DataAddress)")),
});
const asset = z.looseObject({
  ...jsonLd,
  properties: opt(z.record(z.string(), z.unknown())),
  privateProperties: opt(z.record(z.string(), z.unknown())),
  dataAddress: opt(z.looseObject({ type: opt(z.string()), baseUrl: opt(z.string()) })),
  participantContextId: opt(z.string()),
  name: opt(z.string()),
  description: opt(z.string()),
  contenttype: opt(z.string()),
});
/** a participant context as the list answers it: the tenant manager's record with the hub's names (open: JSON-LD) */
const participantContext = z.looseObject({
  ...jsonLd,
  identity: z.string().describe("the participant's DID"),
  state: opt(z.string().describe("e.g. CREATED, ACTIVATED")),
  stateTimestamp: opt(z.number()),
  properties: opt(z.record(z.string(), z.unknown())),
  participantId: z.string(),
  displayName: z.string(),
  role: z.string(),
  slug: z.string(),
});
const assetsOfParticipant = z.object({
  participantId: z.string(),
  identity: z.string().describe("the participant's DID"),
  assets: z.array(asset),
});

/** a name of the plain syntax (names.ts), or blank */
const nameOrBlank = (field: string) =>
  z.union([nameField(field), z.string().regex(/^\s*$/)], {
    error: `${field} may contain only letters, digits, spaces and . , ' & - / + (1-120 characters)`,
  });

export const dataspaceContract: Contracts = {
  "GET /api/negotiations": {
    query: negotiationList,
    answers: {
      200: ok(
        z.union([
          z.array(negotiation),
          catalogSchema.describe("the provider's DCAT catalogue (JSON-LD) as the connector answers it: open"),
        ]),
        "The negotiations (array), or with catalog=true the provider catalogue keyed by its DID",
      ),
      403: ACTING,
      502: upstream("Failed to fetch provider catalog"),
    },
  },
  "POST /api/negotiations": {
    body: negotiationBody,
    answers: {
      201: created(idAnswer, "The connector's answer"),
      403: ACTING,
      404: fails("The participant context is unknown"),
      502: upstream("Failed to initiate contract negotiation"),
    },
  },
  "GET /api/negotiations/:id": {
    query: byParticipant,
    answers: { 200: ok(negotiation), 403: ACTING, 404: fails("No such negotiation"), 502: upstream("") },
  },
  "GET /api/transfers": {
    query: byParticipant,
    answers: { 200: ok(z.array(transfer)), 403: ACTING, 502: upstream("") },
  },
  "POST /api/transfers": {
    body: transferBody,
    answers: {
      201: created(idAnswer, "A TransferProcess (demonstration) or the connector's answer"),
      403: ACTING,
      404: fails("The participant context is unknown"),
      502: upstream("Failed to initiate data transfer"),
    },
  },
  "GET /api/transfers/:id": {
    query: byParticipant,
    answers: { 200: ok(transfer), 403: ACTING, 404: fails("No such transfer"), 502: upstream("") },
  },
  "GET /api/assets": {
    query: assetsQuery,
    answers: {
      200: ok(
        z.union([z.array(asset), z.array(assetsOfParticipant)]),
        "With participantId: that context's assets; without: `{participantId, identity, assets[]}` per participant",
      ),
      403: ACTING,
    },
  },
  "POST /api/assets": {
    body: assetBody,
    answers: {
      201: created(idAnswer, "The connector's answer"),
      // assets.ts DATASETS_NOT_HELD (decision 0096), POLICY_NOT_HELD (0108)
      400: refusals(
        "datasets must be catalogue datasets that <participantId> holds: <datasets> <is/are> not",
        "policyId must be a policy definition that <participantId> holds at its connector: <policyId> is not",
      ),
      403: ACTING,
      404: fails("The participant context is unknown"),
      409: fails("An asset with this assetId exists already, or the participant context is not active"),
      502: fails(
        "Failed to create asset: the connector failed (spec's 502 text); with a policyId also when it did not take the offer, the asset then removed again (`detail` says what happened)",
      ),
    },
  },
  "GET /api/participants": {
    answers: {
      200: ok(z.array(participantContext), "The participant contexts of the dataspace"),
      502: upstream("Failed to list participants"),
    },
  },
  "POST /api/participants": {
    body: z
      .looseObject({
        displayName: requiredText(PARTICIPANT_FIELDS_REQUIRED),
        role: requiredText(PARTICIPANT_FIELDS_REQUIRED),
        organization: z.string().optional(),
        ehdsParticipantType: z.string().optional(),
      })
      .and(
        z.looseObject({
          displayName: nameField("displayName"),
          role: z.enum(ROLES, { error: `role must be one of ${ROLES.join(", ")}` }),
          organization: nameOrBlank("organization")
            .optional()
            .describe("blank counts as absent (default: displayName)"),
          ehdsParticipantType: optionalId("ehdsParticipantType").describe("default: role"),
        }),
      ),
    answers: {
      201: created(onboardingResult),
      502: upstream("Failed to create participant"),
      503: fails("No tenant-manager cell or dataspace profile, or no tenant manager configured"),
    },
  },
  "PATCH /api/participants/:id": {
    body: z
      .looseObject({
        displayName: nameOrBlank("displayName"),
        organization: nameOrBlank("organization"),
      })
      .partial()
      .refine((b) => !!b.displayName?.trim() || !!b.organization?.trim(), {
        message: "displayName or organization is required",
        path: ["displayName"],
      })
      .meta(presentFields("anyOf", "displayName", "organization")),
    answers: {
      200: ok(participantSchema),
      404: fails("No such participant"),
      502: upstream("Failed to update participant"),
    },
  },
  "GET /api/participants/me": {
    answers: { 200: ok(participantSchema, "The caller's organisation, or the person without one") },
  },
  "GET /api/participants/:id/credentials": {
    answers: {
      200: ok(z.array(credentialSchema)),
      404: fails("No such participant"),
      502: fails("The identity hub failed"),
    },
  },
  "GET /api/tasks": {
    answers: { 200: ok(z.array(taskSchema), "Negotiations and transfers in the caller's scope") },
  },
};
