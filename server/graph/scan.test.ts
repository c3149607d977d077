import { describe, expect, it } from "vitest";
import { seededInsightPerFile } from "../../tests/support/insight";
import type { GraphStore, NodeQuery } from "./store";
import { scanNodes } from "./scan";

const insight = seededInsightPerFile(60);

describe("scanNodes", () => {
  it("reads every node of a label once, in the store's order, by keyset pages (never a growing OFFSET)", async () => {
    const queries: NodeQuery[] = [];
    const graph: GraphStore = {
      ...insight.graph,
      findNodes: (q) => (queries.push(q), insight.graph.findNodes(q)),
    };
    const total = await insight.graph.countWhere("Measurement");
    const pageSize = Math.ceil(total / 4);
    const ids: string[] = [];
    for await (const page of scanNodes(graph, "Measurement", undefined, pageSize)) {
      expect(page.length).toBeLessThanOrEqual(pageSize);
      ids.push(...page.map((n) => n.id));
    }
    const all = await insight.graph.findNodes({ label: "Measurement", limit: total + 1 });
    expect(total).toBeGreaterThan(pageSize);
    expect(ids).toEqual(all.map((n) => n.id));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    expect(queries.every((q) => q.offset === undefined)).toBe(true);
    // each page after the last node of the one before
    expect(queries.slice(1).map((q) => q.after)).toEqual(
      queries.slice(1).map((_, i) => ids[(i + 1) * pageSize - 1]),
    );
  });
});
