import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, ok, refusals } from "../http/contract-fields";
import { nlqAnswer, nlqBackend, nlqTemplates } from "./service";
import { TEMPLATES } from "./templates";

/** The declarations of the question routes (server/http/contract.ts). */

export const nlqContract: Contracts = {
  "GET /api/nlq": { answers: { 200: ok(nlqTemplates) } },
  "POST /api/nlq": {
    body: z.looseObject({
      question: z.string().regex(/\S/).describe("not blank; at most 500 characters once trimmed"),
      templateId: z
        .union([z.enum(["auto", ...TEMPLATES.map((t) => t.id)]), z.literal(""), z.null()])
        .optional()
        .describe('default "auto" (also for "" and null)'),
    }),
    bodyParsedBy: "handler",
    answers: {
      200: ok(nlqAnswer, "The answer"),
      400: refusals("The question does not fit template <rest>", "question must be at most 500 characters"),
      502: fails("The question back end failed (proxy error)"),
    },
  },
  "GET /api/nlq/backend": { answers: { 200: ok(nlqBackend) } },
};
