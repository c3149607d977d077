import { z } from "zod";
import type { Contracts } from "../http/contract";
import { fails, ok } from "../http/contract-fields";
import { overviewSchema } from "./model";
import { personaQuery } from "./personas";

/** The declarations of the persona overview (server/http/contract.ts). */

export const overviewContract: Contracts = {
  "GET /api/overview": {
    query: z.object({ persona: personaQuery }),
    answers: {
      200: ok(overviewSchema),
      403: fails("Only operators may look at another persona's overview"),
    },
  },
};
