import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import type { GraphStore } from "../graph";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import type { Directory } from "./directory";
import { createMockDsp } from "./mock-dsp";

let db: Db;
let graph: GraphStore;
beforeAll(async () => {
  db = openDatabase(":memory:");
  graph = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
  await graph.importBatch(
    [
      { id: "participant-x", label: "Participant", layer: "l4", properties: { slug: "x", did: "did:web:x" } },
      { id: "product-x", label: "DataProduct", layer: "l4", properties: { assetId: "asset-x" } },
      {
        id: "policy-x",
        label: "Policy",
        layer: "l4",
        properties: {
          policyType: "Offer",
          assigner: "did:web:x",
          // a null rule and a null constraint: kept as JSON texts, as the marketplace keeps them
          permission: JSON.stringify([
            null,
            {
              action: "use",
              constraint: [null, { leftOperand: "purpose", operator: "eq", rightOperand: "research" }],
            },
          ]),
          prohibition: JSON.stringify([null]),
          obligation: [3],
        },
      },
      { id: "participant-y", label: "Participant", layer: "l4", properties: { slug: "y", did: "did:web:y" } },
      { id: "product-y", label: "DataProduct", layer: "l4", properties: { assetId: "asset-y" } },
      {
        id: "policy-y",
        label: "Policy",
        layer: "l4",
        properties: {
          policyType: "Offer",
          assigner: "did:web:y",
          // rules without a text action, and constraints whose terms or value cannot be stated
          permission: JSON.stringify([
            { constraint: [{ leftOperand: "purpose", operator: "eq", rightOperand: "research" }] },
            { action: "" },
            { action: { "@id": "odrl:use" } },
            {
              action: "use",
              constraint: [
                { leftOperand: "purpose", operator: "eq", rightOperand: { nested: true } },
                { leftOperand: "purpose", operator: "eq" },
                { operator: "eq", rightOperand: "research" },
                { leftOperand: "purpose", rightOperand: "research" },
                { leftOperand: "count", operator: "lteq", rightOperand: [1, "2"] },
              ],
            },
          ]),
          prohibition: JSON.stringify([{ action: "distribute" }, {}]),
          obligation: JSON.stringify([{ action: null }]),
        },
      },
    ],
    [
      { id: "e1", source: "participant-x", target: "product-x", type: "OFFERS" },
      { id: "e2", source: "product-x", target: "policy-x", type: "HAS_POLICY" },
      { id: "e3", source: "participant-y", target: "product-y", type: "OFFERS" },
      { id: "e4", source: "product-y", target: "policy-y", type: "HAS_POLICY" },
    ],
  );
});
afterAll(() => db?.close());

describe("the demonstration DSP catalogue", () => {
  it("skips rule and constraint entries that are not objects instead of failing", async () => {
    const directory = { find: async () => undefined } as unknown as Directory;
    const catalog = await createMockDsp({ graph, directory }).catalog("x", "http://hub.test");
    expect(catalog["dcat:dataset"][0]!["odrl:hasPolicy"]).toEqual([
      {
        "@id": "policy-x",
        "@type": "odrl:Offer",
        "odrl:assigner": { "@id": "did:web:x" },
        "odrl:target": { "@id": "asset-x" },
        "odrl:permission": [
          {
            "odrl:action": { "@id": "odrl:use" },
            "odrl:constraint": [
              {
                "odrl:leftOperand": { "@id": "odrl:purpose" },
                "odrl:operator": { "@id": "odrl:eq" },
                "odrl:rightOperand": "research",
              },
            ],
          },
        ],
        "odrl:prohibition": [],
        "odrl:obligation": [],
      },
    ]);
  });

  it("leaves out rules without a text action and constraints it cannot state, as ruleActions reads them", async () => {
    const directory = { find: async () => undefined } as unknown as Directory;
    const catalog = await createMockDsp({ graph, directory }).catalog("y", "http://hub.test");
    const offer = catalog["dcat:dataset"][0]!["odrl:hasPolicy"][0]!;
    expect(JSON.stringify(offer)).not.toContain("undefined");
    expect(offer["odrl:permission"]).toEqual([
      {
        "odrl:action": { "@id": "odrl:use" },
        "odrl:constraint": [
          {
            "odrl:leftOperand": { "@id": "odrl:count" },
            "odrl:operator": { "@id": "odrl:lteq" },
            "odrl:rightOperand": [1, "2"],
          },
        ],
      },
    ]);
    expect(offer["odrl:prohibition"]).toEqual([{ "odrl:action": { "@id": "odrl:distribute" } }]);
    expect(offer["odrl:obligation"]).toEqual([]);
  });
});
