import type { Contracts } from "../http/contract";
import { fails, has, ok } from "../http/contract-fields";

/** The declarations of the federated routes (server/http/contract.ts). */

export const federatedContract: Contracts = {
  "GET /api/federated": {
    answers: {
      200: ok(has("k", "cohort")),
      400: fails("A cohort criterion (query parameter) the service does not accept"),
    },
  },
};
