import type { Contracts } from "../http/contract";
import { has, ok } from "../http/contract-fields";

/** The declarations of the eehrxf routes (server/http/contract.ts). */

export const eehrxfContract: Contracts = {
  "GET /api/eehrxf": { answers: { 200: ok(has("categories")) } },
};
