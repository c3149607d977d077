import type { Contracts } from "../http/contract";
import { has, ok } from "../http/contract-fields";

/** The declarations of the trust-center routes (server/http/contract.ts). */

export const trustCenterContract: Contracts = {
  "GET /api/trust-center": { answers: { 200: ok(has("trustCenters", "summary")) } },
};
