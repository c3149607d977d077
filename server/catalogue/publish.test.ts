import { describe, expect, it } from "vitest";
import { ADMIN, seededInsightPerFile } from "../../tests/support/insight";
import { CATALOGUE_ID, linked } from "../graph";
import { createCatalogueService } from "./service";

describe("publishing a dataset", () => {
  const insight = seededInsightPerFile(20);

  it("hangs the new dataset under the seeded catalogue (CONTAINS)", async () => {
    expect(await insight.graph.getNode(CATALOGUE_ID)).toMatchObject({ label: "Catalogue" });
    await createCatalogueService(insight.graph).create(
      { id: "dataset-published", title: "Published" },
      ADMIN,
    );
    const contained = await linked(insight.graph, CATALOGUE_ID, "CONTAINS", "out", 1000);
    expect(contained.map((n) => n.id)).toContain("dataset-published");
    // the edge id in the seeded format (synthetic/records.ts: `<source>:<TYPE>:<target>`)
    const edges = await insight.graph.relationships({
      id: CATALOGUE_ID,
      types: ["CONTAINS"],
      direction: "out",
    });
    expect(edges.find((r) => r.node.id === "dataset-published")?.id).toBe(
      `${CATALOGUE_ID}:CONTAINS:dataset-published`,
    );
  });
});
