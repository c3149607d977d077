import { z } from "zod";
import type { Contracts } from "../http/contract";
import {
  created,
  fails,
  NO_CONTENT,
  ok,
  HTTP_URL,
  optionalText,
  refusals,
  requiredText,
} from "../http/contract-fields";
import { componentSchema, diagnosisSchema, restartSchema, topologySchema } from "./component-model";
import {
  DATA_PLANE_HOSTS_INVALID,
  DATA_PLANE_HOSTS_TOO_MANY,
  DID_PATTERN,
  DIRECTORY_DID_REQUIRED,
  HOST_PATTERN,
  MAX_DATA_PLANE_HOSTS,
  DIRECTORY_FIELDS_REQUIRED,
  directoryEntrySchema,
} from "./directory";
import { discoveryCheckSchema } from "./discovery";
import { dspCatalogSchema } from "./mock-dsp";
import { identityProviderSchema } from "./service";
import { goTo, signInAnswer } from "./sign-in";
import { tenantSchema } from "./tenants";

/** The declarations of the operator console, the demonstration DSP catalogue and the sign-in routes (server/http/contract.ts). */

/** blank: the handlers' `presentString` counts it as absent */
const BLANK = z.string().regex(/^\s*$/);
const NO_COMPONENT = fails("No such component");

export const operatorContract: Contracts = {
  "GET /api/admin/tenants": {
    answers: { 200: ok(z.array(tenantSchema)), 502: fails("The tenant manager failed") },
  },
  "GET /api/admin/participants": { answers: { 200: ok(z.array(directoryEntrySchema)) } },
  "POST /api/admin/participants": {
    body: z.looseObject({
      did: requiredText(DIRECTORY_FIELDS_REQUIRED)
        .max(512)
        .regex(DID_PATTERN)
        .regex(/[^:]$/)
        .describe("a W3C DID, did:<method>:<method-specific-id>; did:web needs a domain name or localhost"),
      displayName: requiredText(DIRECTORY_FIELDS_REQUIRED).regex(
        /^\s*\S(?:[\s\S]{0,198}\S)?\s*$/,
        "displayName is too long (at most 200 characters)",
      ),
      country: z
        .union([z.string().regex(/^[A-Za-z]{2}$/), BLANK], {
          error: "country must be an ISO 3166-1 alpha-2 code such as DE",
        })
        .optional(),
      catalogueUrl: z
        .union([z.string().regex(HTTP_URL), BLANK], { error: "catalogueUrl must be an absolute http(s) URL" })
        .optional(),
      dataPlaneHosts: z
        .array(
          z
            .string(DATA_PLANE_HOSTS_INVALID)
            .max(253, DATA_PLANE_HOSTS_INVALID)
            .regex(HOST_PATTERN, DATA_PLANE_HOSTS_INVALID),
          {
            error: DATA_PLANE_HOSTS_INVALID,
          },
        )
        .max(MAX_DATA_PLANE_HOSTS, DATA_PLANE_HOSTS_TOO_MANY)
        .optional()
        .describe(
          "hosts (names or IP addresses, any port) besides the host of its DSP address that a pull may GET the participant's data from: its data plane's public host (decision 0106)",
        ),
    }),
    answers: {
      400: refusals("did:web needs a domain name<rest>"),
      201: created(directoryEntrySchema),
      409: fails("This DID is in the directory already"),
    },
  },
  "DELETE /api/admin/participants": {
    query: z
      .object({ did: optionalText("the entry's DID"), id: optionalText("the entry's id (instead of did)") })
      .superRefine((q, ctx) => {
        if (!q.did?.trim() && !q.id?.trim())
          ctx.addIssue({ code: "custom", path: ["did"], message: DIRECTORY_DID_REQUIRED });
      }),
    answers: {
      400: refusals(DIRECTORY_DID_REQUIRED),
      204: NO_CONTENT,
      404: fails("No such directory entry"),
      409: fails("Seeded directory entries (founding participants) cannot be deleted"),
    },
  },
  "GET /api/admin/components": { answers: { 200: ok(z.array(componentSchema)) } },
  "GET /api/admin/components/topology": { answers: { 200: ok(topologySchema) } },
  "GET /api/admin/components/:name/diagnosis": {
    answers: { 200: ok(diagnosisSchema, "The component probed now"), 404: NO_COMPONENT },
  },
  "POST /api/admin/components/:name/restart": {
    answers: {
      200: ok(restartSchema),
      404: NO_COMPONENT,
      409: fails("The component cannot be restarted, or a restart is under way"),
      502: fails("The component did not come back"),
    },
  },
  "GET /api/debug/phase26": { answers: { 200: ok(discoveryCheckSchema) } },
  "GET /api/keycloak-config": { answers: { 200: ok(identityProviderSchema) } },
  "GET /api/mock-dsp/:participant/catalog/request": {
    answers: { 200: ok(dspCatalogSchema, "A DCAT catalogue (JSON-LD)"), 404: fails("No such participant") },
  },
  "POST /api/mock-dsp/:participant/catalog/request": {
    body: z.looseObject({}).describe("a DSP CatalogRequestMessage"),
    answers: { 200: ok(dspCatalogSchema, "A DCAT catalogue (JSON-LD)"), 404: fails("No such participant") },
  },
  "GET /api/auth/:rest*": {
    query: z.object({
      callbackUrl: optionalText("signin: where to land after signing in"),
      returnTo: optionalText("signin: where to land (instead of callbackUrl)"),
      error: optionalText("error: the error to show"),
    }),
    answers: {
      200: ok(signInAnswer, "session, providers, csrf, error"),
      303: ok(goTo, "signin, callback: go to `Location`"),
      404: fails("No such sign-in route"),
    },
  },
  "POST /api/auth/:rest*": {
    body: z.looseObject({}),
    answers: {
      200: ok(goTo, "signout: the provider's end-session page"),
      303: ok(goTo, "signin: go to `Location`"),
      404: fails("No such sign-in route"),
    },
  },
};
