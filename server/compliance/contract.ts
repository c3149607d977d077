import { z } from "zod";
import type { Contracts } from "../http/contract";
import { ok, optionalText } from "../http/contract-fields";
import { complianceSummarySchema } from "./summary";
import { tckAnswer } from "./tck";

/** The declarations of the compliance summary and the conformance probes (server/http/contract.ts). */

export const complianceContract: Contracts = {
  "GET /api/compliance": { answers: { 200: ok(complianceSummarySchema) } },
  "GET /api/compliance/tck": {
    query: z.object({ run: optionalText("`1` or `true`: run the probes again") }),
    answers: { 200: ok(tckAnswer) },
  },
};
