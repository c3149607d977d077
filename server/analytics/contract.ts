import { z } from "zod";
import type { Contracts } from "../http/contract";
import { intQuery, ok } from "../http/contract-fields";
import { TOP_DEFAULT, TOP_MAX } from "./service";

/** The declarations of the analytics route (server/http/contract.ts). */

const count = z.number().int().min(0);
/** a count that small-cell suppression may withhold (federated/suppression.ts PublishedCount) */
const published = z.object({
  key: z.string(),
  count: count.nullable().describe("null when suppressed"),
  suppressed: z.boolean(),
  reason: z.string().optional().describe("why it was suppressed"),
  display: z.string().describe('the count, or "<k" when suppressed'),
});
const topEntry = z.object({
  code: z.string(),
  system: z.string(),
  display: z.string(),
  omopConceptId: z.number().int(),
  rows: count.nullable().describe("OMOP rows; null when suppressed"),
  persons: count.nullable().describe("distinct persons; null when suppressed"),
  suppressed: z.boolean(),
  display_persons: z.string(),
});
const maybe = z.number().nullable();
/** the ODRL scope an answer was computed under (federated/scope.ts OdrlScope) */
export const odrlScopeAnswer = z.object({
  role: z.string(),
  aggregateOnly: z.literal(true),
  k: count.nullable().describe("null: exact counts (supervisory scope)"),
  policies: z.array(z.object({ id: z.string(), type: z.string(), assigner: z.string().nullable() })),
  prohibitions: z.array(z.string()),
  obligations: z.array(z.string()),
  purposes: z.array(z.string()),
  applied: z.array(z.string()),
});
/** service.ts AnalyticsDashboard */
const dashboard = z.object({
  source: z.string(),
  generatedAt: z.string(),
  graphVersion: z.number().int(),
  ageReferenceDate: z.string(),
  totals: z.object({
    persons: count,
    visits: count,
    conditionOccurrences: count,
    drugExposures: count,
    measurements: count,
  }),
  holders: z.array(published.extend({ name: z.string() })),
  gender: z.array(published),
  ageBands: z.array(published),
  topConditions: z.array(topEntry),
  topDrugs: z.array(topEntry),
  topMeasurements: z.array(
    topEntry.extend({
      unit: z.string().nullable(),
      mean: maybe,
      sd: maybe,
      aboveRange: maybe,
      belowRange: maybe,
    }),
  ),
  scope: odrlScopeAnswer,
  cache: z.object({ hit: z.boolean(), builtMs: z.number(), indexBuiltAt: z.string() }),
  notes: z.array(z.string()),
});

export const analyticsContract: Contracts = {
  "GET /api/analytics": {
    query: z.object({ top: intQuery("top", 1, TOP_MAX, TOP_DEFAULT) }),
    answers: { 200: ok(dashboard, "The OMOP dashboard within the caller's ODRL scope") },
  },
};
