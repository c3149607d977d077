import { describe, expect, it } from "vitest";
import { startUpstreamDouble } from "../../tests/support/upstream-double";
import { MANAGEMENT_CONTEXT } from "../dataspace-protocol";
import { offersOf } from "./assets";
import { createConnectorClient } from "./connector-client";
import type { DataspaceRuntime } from "./runtime";

/* Which assets the share page says a participant's connector offers (decision 0111): the selectors it reads. */

const ID = "https://w3id.org/edc/v0.0.1/ns/id";
const criterion = (operandLeft: string, operator: string, operandRight: unknown) => ({
  "@type": "Criterion",
  operandLeft,
  operator,
  operandRight,
});

describe("offersOf", () => {
  it("lists the definitions by POST /v4beta/contractdefinitions/request (a QuerySpec) and reads an empty selector, `=` and `in` on the asset id, compacted or not; any other criterion is not read as an offer", async () => {
    const double = await startUpstreamDouble();
    try {
      double.on("POST", "/m/v4beta/contractdefinitions/request", {
        json: [
          { "@id": "all", accessPolicyId: "p-all", contractPolicyId: "p-all", assetsSelector: [] },
          { "@id": "a-offer", contractPolicyId: "p-a", assetsSelector: criterion(ID, "=", "a") },
          { "@id": "ab", contractPolicyId: "p-ab", assetsSelector: [criterion("edc:id", "in", ["a", "b"])] },
          {
            "@id": "both",
            contractPolicyId: "p-both",
            assetsSelector: [criterion("id", "in", ["b", "c"]), criterion(ID, "=", "c")],
          },
          { "@id": "by-name", contractPolicyId: "p-x", assetsSelector: [criterion("name", "=", "a")] },
          { "@id": "like", contractPolicyId: "p-y", assetsSelector: [criterion(ID, "like", "a%")] },
        ],
      });
      const connector = createConnectorClient({
        managementUrl: `${double.url}/m`,
        apiVersion: "v4beta",
        timeoutMs: 2000,
        participantId: "did:web:p",
      });
      const offered = await offersOf({ connector } as unknown as DataspaceRuntime, "did:web:p", [
        "a",
        "b",
        "c",
      ]);
      expect(double.received("POST", "/m/v4beta/contractdefinitions/request")[0]!.body).toMatchObject({
        "@context": [MANAGEMENT_CONTEXT],
        "@type": "QuerySpec",
      });
      const ids = (assetId: string) => offered[assetId]!.map((o) => o.definitionId);
      expect(ids("a")).toEqual(["all", "a-offer", "ab"]);
      expect(ids("b")).toEqual(["all", "ab"]);
      expect(ids("c")).toEqual(["all", "both"]);
      expect(offered.a![1]).toEqual({ definitionId: "a-offer", policyId: "p-a", byHub: true });
      expect(offered.b![1]).toEqual({ definitionId: "ab", policyId: "p-ab", byHub: false });
    } finally {
      await double.close();
    }
  });

  it("the connector failing: the spec's 502 Failed to list offers", async () => {
    const connector = { listContractDefinitions: () => Promise.reject(new Error("down")) };
    await expect(offersOf({ connector } as unknown as DataspaceRuntime, "p", ["a"])).rejects.toMatchObject({
      status: 502,
      message: "Failed to list offers",
    });
  });
});
