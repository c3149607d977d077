import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, has, ok } from "../http/contract-fields";

/** The declarations of the question routes (server/http/contract.ts). */

export const nlqContract: Contracts = {
  "GET /api/nlq": { answers: { 200: ok(has("templates")) } },
  "POST /api/nlq": {
    body: z.looseObject({
      question: z.string().describe("required, not blank (trimmed)"),
      templateId: z.string().optional().describe('default "auto"'),
    }),
    bodyParsedBy: "handler",
    answers: {
      200: ok(z.looseObject({}), "The answer"),
      502: fails("The question back end failed (proxy error)"),
    },
  },
  "GET /api/nlq/backend": { answers: { 200: ok(has("backend")) } },
};
