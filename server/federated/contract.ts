import { z } from "zod";
import type { Contracts } from "../http/contract";
import { ok, optionalText, refusals } from "../http/contract-fields";
import { AGE_BANDS, GENDERS } from "../analytics";
import { federatedSummary, K_MAX } from "./service";

/**
 * The declarations of the federated routes (server/http/contract.ts). The criteria are read by the
 * service (service.ts `criteriaInput`, `kFrom`): each trimmed, blank counts as absent; a term resolves
 * against the graph's concepts, which no schema can hold, so those refusals are stated in the 400.
 */

const term = (what: string) =>
  optionalText(`${what}: a code or a name of a concept in the graph (at most 200 characters, trimmed)`);

export const federatedContract: Contracts = {
  "GET /api/federated": {
    query: z.object({
      condition: term("SNOMED CT or ICD-10"),
      drug: term("RxNorm or ATC"),
      measurement: term("LOINC"),
      ageBand: optionalText(`one of ${AGE_BANDS.join(", ")} (white space ignored, – as -)`),
      gender: optionalText(`one of ${GENDERS.join(", ")} (any case)`),
      k: optionalText(`the smallest published count: a whole number from the configured minimum to ${K_MAX}`),
    }),
    answers: {
      200: ok(federatedSummary),
      400: refusals(
        "<criterion>: no <system> concept in the graph matches <rest>",
        "<criterion> must be at most 200 characters",
        "ageBand must be one of <rest>",
        "gender must be one of <rest>",
        "k must be <rest>",
      ),
    },
  },
};
