import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, NO_CONTENT, ok, refusals, requiredText } from "../http/contract-fields";
import { healthDatasetSchema, PUBLISHER_NOT_YOURS } from "./service";

/** The declarations of the catalogue routes (server/http/contract.ts). */

const REQUIRED = "id and title are required";
/** a dataset as the catalogue answers it (service.ts `toDataset`): the fields it has, and its holder */
const dataset = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  publisher: z.string().optional(),
  license: z.string().optional(),
  datasetType: z.string().optional(),
  legalBasis: z.string().optional(),
  recordCount: z.number().int().min(0).optional(),
  personalData: z.boolean().optional(),
  sensitiveData: z.boolean().optional(),
  purpose: z.string().optional(),
  populationCoverage: z.string().optional(),
  conformsTo: z.array(z.string()).optional(),
  keywords: z.array(z.string()).optional(),
  theme: z.string().optional(),
  holder: z.string().optional().describe("the organisation (slug) that published it, or operator"),
});

// the spec's text for a missing id or title first, then the dataset's own schema (service.ts);
// title trimmed as the dataset schema trims it: the two stages must give the same value
export const publishBody = z
  .looseObject({ id: requiredText(REQUIRED), title: requiredText(REQUIRED).trim() })
  .and(healthDatasetSchema);
export const withdrawQuery = z.object({ id: requiredText("id query parameter is required") });

export const catalogueContract: Contracts = {
  "GET /api/catalog": { answers: { 200: ok(z.array(dataset), "HealthDCAT-AP datasets") } },
  "POST /api/catalog": {
    body: publishBody,
    answers: {
      201: created(dataset),
      400: refusals(PUBLISHER_NOT_YOURS),
      409: fails("A dataset or node with this id already exists"),
    },
  },
  "DELETE /api/catalog": {
    query: withdrawQuery,
    answers: { 204: NO_CONTENT, 404: fails("No such dataset") },
  },
};
