import { accessBodyHandlers } from "../access-body/handlers";
import { catalogueHandlers } from "../catalogue/handlers";
import { complianceHandlers } from "../compliance/handlers";
import { eudiHandlers } from "../eudi/handlers";
import { dataspaceHandlers } from "../dataspace/handlers";
import { graphHandlers } from "../graph/handlers";
import { healthHandlers } from "../health";
import { insightHandlers } from "../overview/handlers";
import { patientHandlers } from "../patient/handlers";
import { patientAppHandlers } from "../patient-app/handlers";
import { governanceHandlers } from "../operator/governance-handlers";
import type { HandlerMap } from "./handler";

/** Binds the route table's keys to capability handlers; see route-table.ts for paths and access. */
export const HANDLERS: HandlerMap = {
  ...healthHandlers,
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
