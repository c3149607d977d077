import { z } from "zod";

const rules = z.array(z.record(z.string(), z.unknown())).optional();
/** An ODRL policy definition as the hub keeps it and the connector's management API carries it. */
export const odrlPolicyDocument = z.object({
  "@id": z.string(),
  "@type": z.string(),
  policy: z
    .looseObject({ "@type": z.string(), permission: rules, prohibition: rules, obligation: rules })
    .describe("the ODRL policy (Set, Offer or Agreement) with its rules, other keys as sent"),
});
export type OdrlPolicyDocument = z.infer<typeof odrlPolicyDocument>;
