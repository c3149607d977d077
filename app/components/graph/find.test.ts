import { describe, expect, it } from "vitest";
import { findMatches } from "./find";
import type { VNode } from "./types";

const node = (id: string, caption: string, label = "Condition"): VNode => ({
  id,
  caption,
  label,
  layer: "l3",
});

describe("findMatches (the graph's Find node list)", () => {
  it("lists nodes that read the same once, with how many there are, and opens the first", () => {
    const nodes = [
      node("c1", "Type 2 diabetes mellitus"),
      node("c2", "Type 2 diabetes mellitus"),
      node("c3", "Type 2 diabetes mellitus"),
      node("d1", "Type 2 diabetes cohort", "HealthDataset"),
      node("c4", "Type 1 diabetes mellitus"),
    ];
    const found = findMatches(nodes, "diabetes", 8);
    expect(found.map((m) => [m.node.id, m.alike])).toEqual([
      ["c1", 2],
      ["d1", 0],
      ["c4", 0],
    ]);
  });

  it("keeps the same caption of two kinds apart, caps the lines, and finds by id or kind", () => {
    const nodes = [node("a", "Aspirin", "Medication"), node("b", "Aspirin", "Concept"), node("x-9", "Other")];
    expect(findMatches(nodes, "aspirin", 8)).toHaveLength(2);
    expect(findMatches(nodes, "aspirin", 1)).toHaveLength(1);
    expect(findMatches(nodes, "x-9", 8).map((m) => m.node.id)).toEqual(["x-9"]);
    expect(findMatches(nodes, "concept", 8).map((m) => m.node.id)).toEqual(["b"]);
    expect(findMatches(nodes, "  ", 8)).toEqual([]);
    // nodes that read the same but are searched by id stay apart (a pseudonym is found by its id)
    const people = [node("patient-xa", "Patient", "Patient"), node("patient-xb", "Patient", "Patient")];
    expect(findMatches(people, "patient-x", 8).map((m) => m.node.id)).toEqual(["patient-xa", "patient-xb"]);
  });
});
