import { accessBodyHandlers } from "./access-body/handlers";
import { catalogueHandlers } from "./catalogue/handlers";
import { complianceHandlers } from "./compliance/handlers";
import { eudiHandlers } from "./eudi/handlers";
import { dataspaceHandlers } from "./dataspace/handlers";
import { graphHandlers } from "./graph/handlers";
import { healthHandlers } from "./health";
import type { HandlerMap } from "./http/handler";
import { openApiHandlers } from "./openapi/handlers";
import { insightHandlers } from "./overview/handlers";
import { patientHandlers } from "./patient/handlers";
import { patientAppHandlers } from "./patient-app/handlers";
import { governanceHandlers } from "./operator/governance-handlers";
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
  ...governanceHandlers,
};
