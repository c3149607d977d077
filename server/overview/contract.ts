import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, has, ok, optionalText, refusals } from "../http/contract-fields";

/** The declarations of the persona overview (server/http/contract.ts). */

export const overviewContract: Contracts = {
  "GET /api/overview": {
    query: z.object({ persona: optionalText("the persona to show (operators may pick)") }),
    answers: {
      200: ok(has("persona", "totals")),
      400: refusals("persona must be one of <a role, or a persona name>"),
      403: fails("Only operators may look at another persona's overview"),
    },
  },
};
