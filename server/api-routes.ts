import { accessBodyHandlers } from "./access-body/handlers";
import { auditHandlers } from "./audit/handlers";
import { catalogueHandlers } from "./catalogue/handlers";
import { complianceHandlers } from "./compliance/handlers";
import { credentialHandlers } from "./credentials/handlers";
import { eudiHandlers } from "./eudi/handlers";
import { dataspaceHandlers } from "./dataspace/handlers";
import { graphHandlers } from "./graph/handlers";
import { healthHandlers } from "./health";
import type { HandlerMap } from "./http/handler";
import { openApiHandlers } from "./openapi/handlers";
import { insightHandlers } from "./overview/handlers";
import { patientHandlers } from "./patient/handlers";
import { patientAppHandlers } from "./patient-app/handlers";
import { operatorHandlers } from "./operator/handlers";
import { signInHandlers } from "./operator/sign-in";
import { policyHandlers } from "./policies/handlers";
import { trustCenterHandlers } from "./trust-center/handlers";
import type { Services } from "./services";

/**
 * The route wiring, on top beside the container: binds the route table's keys
 * (server/http/routes/) to capability handlers. Each capability's map names the narrow part of
 * the container it uses; `Services` satisfies them all, which the type below checks.
 */
export const HANDLERS: HandlerMap<Services> = {
  ...healthHandlers,
  ...openApiHandlers,
  ...catalogueHandlers,
  ...graphHandlers,
  ...patientHandlers,
  ...eudiHandlers,
  ...patientAppHandlers,
  ...dataspaceHandlers,
  ...accessBodyHandlers,
  ...complianceHandlers,
  ...insightHandlers,
  // issue 4's governance: credentials, ODRL policies, audit, operator console, trust center, sign-in routes
  ...credentialHandlers,
  ...policyHandlers,
  ...auditHandlers,
  ...operatorHandlers,
  ...trustCenterHandlers,
  ...signInHandlers,
};
