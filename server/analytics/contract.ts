import { z } from "zod";
import type { Contracts } from "../http/contract";
import { has, intQuery, ok } from "../http/contract-fields";
import { TOP_DEFAULT, TOP_MAX } from "./service";

/** The declarations of the analytics route (server/http/contract.ts). */

export const analyticsContract: Contracts = {
  "GET /api/analytics": {
    query: z.object({ top: intQuery("top", 1, TOP_MAX, TOP_DEFAULT) }),
    answers: { 200: ok(has("totals", "holders")) },
  },
};
