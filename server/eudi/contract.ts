import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, ok, requiredText } from "../http/contract-fields";
import { startResult, statusResult } from "./transaction";

/** The declarations of the wallet sign-in routes (server/http/contract.ts). */

export const eudiContract: Contracts = {
  "POST /api/auth/eudi/start": {
    body: z.looseObject({ returnTo: z.string().optional().describe("where to land once signed in") }),
    answers: {
      201: created(startResult),
      429: fails("Too many wallet sign-ins from this client (Retry-After)"),
    },
  },
  "GET /api/auth/eudi/status": {
    query: z.object({ sid: requiredText("sid query parameter is required") }),
    answers: { 200: ok(statusResult), 404: fails("Unknown wallet sign-in") },
  },
};
