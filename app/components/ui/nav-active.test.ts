import { describe, expect, it } from "vitest";
import { activeNavPath } from "./app-href";

describe("activeNavPath", () => {
  const paths = ["/", "/access-body", "/access-body/report", "/register"];
  it("marks one entry: the longest prefix", () => {
    expect(activeNavPath("/access-body/report", paths)).toBe("/access-body/report");
    expect(activeNavPath("/access-body/applications/DAA-1", paths)).toBe("/access-body");
    expect(activeNavPath("/", paths)).toBe("/");
    expect(activeNavPath("/registers", paths)).toBeNull();
  });
});
