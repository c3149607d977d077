import { z } from "zod";
import { odrlScope, publishedCount } from "../federated";
import type { Contracts } from "../http/contract";
import { intQuery, ok } from "../http/contract-fields";

export const TOP_DEFAULT = 10;
export const TOP_MAX = 50;

/** The declarations of the analytics route (server/http/contract.ts). */

const count = z.number().int().min(0);
export const topEntry = z.object({
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
export const measurementEntry = topEntry.extend({
  unit: z.string().nullable(),
  mean: maybe,
  sd: maybe,
  aboveRange: maybe,
  belowRange: maybe,
});
/** GET /api/analytics's answer (service.ts AnalyticsDashboard) */
export const dashboard = z.object({
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
  holders: z.array(publishedCount.extend({ name: z.string() })),
  gender: z.array(publishedCount),
  ageBands: z.array(publishedCount),
  topConditions: z.array(topEntry),
  topDrugs: z.array(topEntry),
  topMeasurements: z.array(measurementEntry),
  scope: odrlScope,
  cache: z.object({ hit: z.boolean(), builtMs: z.number(), indexBuiltAt: z.string() }),
  notes: z.array(z.string()),
});

export const analyticsContract: Contracts = {
  "GET /api/analytics": {
    query: z.object({ top: intQuery("top", 1, TOP_MAX, TOP_DEFAULT) }),
    answers: { 200: ok(dashboard, "The OMOP dashboard within the caller's ODRL scope") },
  },
};
