import { z } from "zod";
import {
  DCAT_NAMESPACE,
  DCT_NAMESPACE,
  DSP_PROTOCOL,
  DSPACE_NAMESPACE,
  ODRL_NAMESPACE,
} from "../dataspace-protocol";
import { linked, type GraphNode, type GraphStore } from "../graph";
import { badRequest, notFound } from "../http/errors";
import { rules } from "../policies";
import type { Directory } from "./directory";

/**
 * The demonstration DSP catalogue a catalogue crawler polls (GET/POST
 * /api/mock-dsp/{participant}/catalog/request): the participant's data products from the
 * marketplace layer of the graph as a dcat:Catalog in JSON-LD, each dataset with its ODRL offer
 * under odrl:hasPolicy, in the shape of a DSP 2025-1 catalogue answer. Participants are named by
 * their directory id (slug), their DID, or their graph id.
 */

type Json = Record<string, unknown>;

const CONTEXT = {
  dcat: DCAT_NAMESPACE,
  dct: DCT_NAMESPACE,
  odrl: ODRL_NAMESPACE,
  dspace: DSPACE_NAMESPACE,
  // the EHDS terms the marketplace's policies use (ehds:reIdentify), under the namespace of the
  // dataspace's credential schemas (server/local-dataspace/seed.ts)
  ehds: "https://w3id.org/ehds/",
};

const ref = z.object({ "@id": z.string() });
const term = (v: string) => ({ "@id": v.includes(":") ? v : `odrl:${v}` });
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const odrlRuleSchema = z.object({
  "odrl:action": ref,
  "odrl:constraint": z
    .array(
      z.object({
        "odrl:leftOperand": ref,
        "odrl:operator": ref,
        "odrl:rightOperand": z.union([scalar, z.array(scalar)]).describe("the value as the offer states it"),
      }),
    )
    .optional(),
});
type OdrlRule = z.infer<typeof odrlRuleSchema>;

// a stored constraint as JSON-LD, when it can be stated: text terms and a value the schema above allows
const storedConstraint = z
  .object({
    leftOperand: z.string().min(1),
    operator: z.string().min(1),
    rightOperand: z.union([scalar, z.array(scalar)]),
  })
  .transform((c) => ({
    "odrl:leftOperand": term(c.leftOperand),
    "odrl:operator": term(c.operator),
    "odrl:rightOperand": c.rightOperand,
  }));

/** an ODRL rule as JSON-LD; none for a rule without a text action (as policies' ruleActions reads rules) */
function odrlRule(rule: Json): OdrlRule[] {
  if (typeof rule.action !== "string" || rule.action === "") return [];
  const out: OdrlRule = { "odrl:action": term(rule.action) };
  if (Array.isArray(rule.constraint)) {
    out["odrl:constraint"] = rule.constraint.flatMap((raw: unknown) => {
      const c = storedConstraint.safeParse(raw);
      return c.success ? [c.data] : [];
    });
  }
  return [out];
}

const offerSchema = z.object({
  "@id": z.string(),
  "@type": z.literal("odrl:Offer"),
  "odrl:assigner": ref,
  "odrl:target": ref,
  "odrl:permission": z.array(odrlRuleSchema),
  "odrl:prohibition": z.array(odrlRuleSchema),
  "odrl:obligation": z.array(odrlRuleSchema),
});

/** The demonstration catalogue (GET/POST /api/mock-dsp/:participant/catalog/request), JSON-LD as built here */
export const dspCatalogSchema = z.object({
  "@context": z.object({
    dcat: z.string(),
    dct: z.string(),
    odrl: z.string(),
    dspace: z.string(),
    ehds: z.string(),
  }),
  "@id": z.string(),
  "@type": z.literal("dcat:Catalog"),
  "dct:title": z.string(),
  "dct:publisher": ref,
  "dspace:participantId": z.string(),
  "dcat:service": z.array(
    z.object({
      "@id": z.string(),
      "@type": z.literal("dcat:DataService"),
      "dcat:endpointURL": z.string(),
      "dct:conformsTo": z.string(),
    }),
  ),
  "dcat:dataset": z.array(
    z.object({
      "@id": z.string().describe("the asset id"),
      "@type": z.literal("dcat:Dataset"),
      "dct:title": z.string(),
      "dct:description": z.string().optional(),
      "dcat:keyword": z.array(z.string()).optional(),
      "dct:isReferencedBy": ref.optional().describe("the catalogue's dataset"),
      "odrl:hasPolicy": z.array(offerSchema),
      "dcat:distribution": z.array(
        z.object({
          "@type": z.literal("dcat:Distribution"),
          "dct:format": ref,
          "dcat:mediaType": z.string(),
          "dcat:accessService": ref,
        }),
      ),
    }),
  ),
});

function offerJsonLd(policy: GraphNode, assetId: string): z.infer<typeof offerSchema> {
  const p = policy.properties;
  return {
    "@id": String(p.uid ?? policy.id),
    "@type": "odrl:Offer",
    "odrl:assigner": { "@id": String(p.assigner ?? "") },
    "odrl:target": { "@id": assetId },
    "odrl:permission": rules(p.permission).flatMap(odrlRule),
    "odrl:prohibition": rules(p.prohibition).flatMap(odrlRule),
    "odrl:obligation": rules(p.obligation).flatMap(odrlRule),
  };
}

export function createMockDsp(deps: { graph: GraphStore; directory: Directory }) {
  const { graph, directory } = deps;

  async function participantNode(key: string): Promise<GraphNode | undefined> {
    const entry = await directory.find(key);
    const slug = entry?.id ?? key.replace(/^participant-/, "");
    const bySlug = await graph.findNodes({ label: "Participant", where: { slug }, limit: 1 });
    const byDid = bySlug.length
      ? bySlug
      : await graph.findNodes({ label: "Participant", where: { did: entry?.did ?? key }, limit: 1 });
    return byDid[0];
  }

  /** the participant's data products that have an offer */
  async function products(participant: GraphNode) {
    const out: { product: GraphNode; dataset: GraphNode | null; offers: GraphNode[] }[] = [];
    for (const product of await linked(graph, participant.id, "OFFERS", "out", 500)) {
      const [described, policies] = await Promise.all([
        linked(graph, product.id, "DESCRIBED_BY", "out", 1),
        linked(graph, product.id, "HAS_POLICY", "out", 20),
      ]);
      const offers = policies.filter((n) => n.properties.policyType === "Offer");
      if (offers.length) out.push({ product, dataset: described[0] ?? null, offers });
    }
    return out;
  }

  return {
    /** checks a POST body: empty, or a CatalogRequestMessage */
    checkRequest(body: Json): void {
      const t = body["@type"];
      const names = [
        "CatalogRequestMessage",
        "dspace:CatalogRequestMessage",
        `${DSPACE_NAMESPACE}CatalogRequestMessage`,
      ];
      if (t !== undefined && !names.includes(t as string)) {
        throw badRequest(
          `The body must be a CatalogRequestMessage (DSP ${DSP_PROTOCOL}), not ${JSON.stringify(t)}`,
        );
      }
    },

    async catalog(key: string, publicUrl: string): Promise<z.infer<typeof dspCatalogSchema>> {
      const node = await participantNode(key);
      if (!node) {
        const entry = await directory.find(key);
        if (entry)
          throw notFound(
            `No demonstration catalogue for ${entry.displayName}: its catalogue is at ${entry.catalogueUrl ?? "no address"}`,
          );
        throw notFound(`No participant ${key} in the directory or the marketplace`);
      }
      const did = String(node.properties.did ?? "");
      const slug = String(node.properties.slug ?? node.id);
      const items = await products(node);
      return {
        "@context": CONTEXT,
        "@id": `${publicUrl}/api/mock-dsp/${slug}/catalog`,
        "@type": "dcat:Catalog",
        "dct:title": `${String(node.properties.displayName ?? slug)} data products (demonstration DSP catalogue)`,
        "dct:publisher": { "@id": did },
        "dspace:participantId": did,
        "dcat:service": [
          {
            "@id": `${publicUrl}/api/mock-dsp/${slug}`,
            "@type": "dcat:DataService",
            "dcat:endpointURL": String(node.properties.dspEndpoint ?? `${publicUrl}/api/mock-dsp/${slug}`),
            "dct:conformsTo": DSP_PROTOCOL,
          },
        ],
        "dcat:dataset": items.map(({ product, dataset, offers }) => {
          const assetId = String(product.properties.assetId ?? product.id);
          const d = dataset?.properties ?? {};
          return {
            "@id": assetId,
            "@type": "dcat:Dataset",
            "dct:title": String(d.title ?? product.properties.title ?? assetId),
            ...(d.description ? { "dct:description": String(d.description) } : {}),
            ...(Array.isArray(d.keywords) ? { "dcat:keyword": d.keywords.map(String) } : {}),
            ...(dataset ? { "dct:isReferencedBy": { "@id": dataset.id } } : {}),
            "odrl:hasPolicy": offers.map((o) => offerJsonLd(o, assetId)),
            "dcat:distribution": [
              {
                "@type": "dcat:Distribution",
                "dct:format": { "@id": String(product.properties.transferType ?? "HttpData-PULL") },
                "dcat:mediaType": String(product.properties.contentType ?? "application/json"),
                "dcat:accessService": { "@id": `${publicUrl}/api/mock-dsp/${slug}` },
              },
            ],
          };
        }),
      };
    },

    /** what a catalogue holds, for the discovery check */
    async summary(key: string) {
      const node = await participantNode(key);
      if (!node) return undefined;
      const items = await products(node);
      return {
        datasets: items.map((i) => ({
          id: String(i.product.properties.assetId ?? i.product.id),
          title: String(i.dataset?.properties.title ?? i.product.properties.title ?? i.product.id),
          offers: i.offers.length,
          datasetId: i.dataset?.id ?? null,
        })),
      };
    },
  };
}

export type MockDsp = ReturnType<typeof createMockDsp>;
