import type { z } from "zod";
import { z as zod } from "zod";
import {
  answerInformationRequestSchema,
  clockEventSchema,
  closeFindingSchema,
  completenessSchema,
  declareResultSchema,
  decideDataRequestSchema,
  issuePermitSchema,
  openFindingSchema,
  openInformationRequestSchema,
  refuseApplicationSchema,
  respondFindingSchema,
  resultActionSchema,
  revokePermitSchema,
  submitApplicationSchema,
  submitDataRequestSchema,
  withdrawSchema,
} from "../access-body/model";
import { healthDatasetSchema } from "../catalogue/service";

/**
 * The zod schemas the handlers parse request bodies with, by route key ("POST /api/catalog").
 * The same objects the capabilities validate with, never copies: a change to a schema changes
 * the OpenAPI document. A route without an entry is documented with a free-form JSON object.
 */
export interface RouteSchemas {
  body?: z.ZodType;
}

export const ROUTE_SCHEMAS: Record<string, RouteSchemas> = {
  "POST /api/catalog": { body: healthDatasetSchema },
  "POST /api/compliance/applications": { body: zod.union([submitApplicationSchema, withdrawSchema]) },
  "POST /api/compliance/applications/clock": { body: clockEventSchema },
  "POST /api/compliance/applications/complete": { body: completenessSchema },
  "POST /api/compliance/information-requests": {
    body: zod.union([openInformationRequestSchema, withdrawSchema]),
  },
  "POST /api/compliance/information-requests/answer": { body: answerInformationRequestSchema },
  "POST /api/compliance/permits": { body: zod.union([issuePermitSchema, refuseApplicationSchema]) },
  "POST /api/compliance/permits/revoke": { body: revokePermitSchema },
  "POST /api/compliance/requests": { body: zod.union([submitDataRequestSchema, withdrawSchema]) },
  "POST /api/compliance/requests/decide": { body: decideDataRequestSchema },
  "POST /api/compliance/findings": { body: openFindingSchema },
  "POST /api/compliance/findings/respond": { body: respondFindingSchema },
  "POST /api/compliance/findings/close": { body: closeFindingSchema },
  "POST /api/compliance/results": { body: zod.union([declareResultSchema, resultActionSchema]) },
};
