import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, has, NO_CONTENT, ok, refusals, requiredText } from "../http/contract-fields";
import { healthDatasetSchema, PUBLISHER_NOT_YOURS } from "./service";

/** The declarations of the catalogue routes (server/http/contract.ts). */

const REQUIRED = "id and title are required";
const dataset = has("id", "title");

export const catalogueContract: Contracts = {
  "GET /api/catalog": { answers: { 200: ok(z.array(dataset), "HealthDCAT-AP datasets") } },
  "POST /api/catalog": {
    // the spec's text for a missing id or title first, then the dataset's own schema (service.ts)
    body: z
      // title trimmed as the dataset schema trims it: the two stages must give the same value
      .looseObject({ id: requiredText(REQUIRED), title: requiredText(REQUIRED).trim() })
      .and(healthDatasetSchema),
    answers: {
      201: created(dataset),
      400: refusals(PUBLISHER_NOT_YOURS),
      409: fails("A dataset or node with this id already exists"),
    },
  },
  "DELETE /api/catalog": {
    query: z.object({ id: requiredText("id query parameter is required") }),
    answers: { 204: NO_CONTENT, 404: fails("No such dataset") },
  },
};
