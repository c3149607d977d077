import type { Contracts } from "../http/contract";
import { ok } from "../http/contract-fields";
import { trustCenterView } from "./service";

/** The declarations of the trust-center routes (server/http/contract.ts). */

export const trustCenterContract: Contracts = {
  "GET /api/trust-center": { answers: { 200: ok(trustCenterView) } },
};
