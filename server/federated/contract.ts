import type { Contracts } from "../http/contract";
import { has, ok } from "../http/contract-fields";

/** The declarations of the federated routes (server/http/contract.ts). */

export const federatedContract: Contracts = {
  "GET /api/federated": { answers: { 200: ok(has("k", "cohort")) } },
};
