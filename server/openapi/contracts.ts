import { accessBodyContract } from "../access-body/contract";
import { analyticsContract } from "../analytics/contract";
import { auditContract } from "../audit/contract";
import { catalogueContract } from "../catalogue/contract";
import { complianceContract } from "../compliance/contract";
import { credentialContract } from "../credentials/contract";
import { dataspaceContract } from "../dataspace/contract";
import { eehrxfContract } from "../eehrxf/contract";
import { eudiContract } from "../eudi/contract";
import { federatedContract } from "../federated/contract";
import { graphContract } from "../graph/contract";
import type { Contracts } from "../http/contract";
import { ok } from "../http/contract-fields";
import { healthSchema } from "../health";
import { openApiDocumentSchema } from "./document";
import { nlqContract } from "../nlq/contract";
import { operatorContract } from "../operator/contract";
import { overviewContract } from "../overview/contract";
import { patientContract } from "../patient/contract";
import { patientAppContract } from "../patient-app/contract";
import { policyContract } from "../policies/contract";
import { trustCenterContract } from "../trust-center/contract";

/**
 * Every route's declaration (server/http/contract.ts), bound by route key like the handlers
 * (server/api-routes.ts): each capability writes its own in its `contract.ts`. The dispatcher parses
 * with them, the OpenAPI document is generated from them (docs/decisions/0055).
 */
export const CONTRACTS: Contracts = {
  "GET /api/health": {
    answers: {
      200: ok(healthSchema, "Health"),
      503: ok(healthSchema, "The hub is not healthy: the store or the graph is down"),
    },
  },
  "GET /api/openapi.json": { answers: { 200: ok(openApiDocumentSchema, "This document") } },
  ...catalogueContract,
  ...graphContract,
  ...patientContract,
  ...eudiContract,
  ...patientAppContract,
  ...dataspaceContract,
  ...accessBodyContract,
  ...complianceContract,
  ...credentialContract,
  ...policyContract,
  ...auditContract,
  ...operatorContract,
  ...trustCenterContract,
  ...federatedContract,
  ...nlqContract,
  ...eehrxfContract,
  ...analyticsContract,
  ...overviewContract,
};
