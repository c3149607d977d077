import type { Contracts } from "../http/contract";
import { ok } from "../http/contract-fields";
import { eehrxfCoverage } from "./service";

/** The declarations of the eehrxf routes (server/http/contract.ts). */

export const eehrxfContract: Contracts = {
  "GET /api/eehrxf": { answers: { 200: ok(eehrxfCoverage) } },
};
