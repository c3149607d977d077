import { z } from "zod";
import type { Contracts } from "../http/contract";
import { has, ok, optionalText } from "../http/contract-fields";

/** The declarations of the compliance summary and the conformance probes (server/http/contract.ts). */

export const complianceContract: Contracts = {
  "GET /api/compliance": { answers: { 200: ok(has("standards", "totals")) } },
  "GET /api/compliance/tck": {
    query: z.object({ run: optionalText("`1` or `true`: run the probes again") }),
    answers: { 200: ok(has("summary", "results")) },
  },
};
