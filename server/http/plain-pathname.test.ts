import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainPathname } from "./api-handler";

describe("the path of a request URL without parsing it", () => {
  it("is the path of a plain URL, and leaves anything that needs normalising to URL", () => {
    expect(plainPathname("http://127.0.0.1:3000/api/graph/node?id=patient-000001")).toBe("/api/graph/node");
    expect(plainPathname("https://hub.example/api/analytics.csv#x")).toBe("/api/analytics.csv");
    expect(plainPathname("http://h/")).toBe("/");
    expect(plainPathname("http://h/api/")).toBe("/api/");
    for (const odd of [
      "http://h/api/../admin",
      "http://h/api//x",
      "http://h/a/./b",
      "http://h/%61pi",
      "http://h/a b",
      "http://h",
    ])
      expect(plainPathname(odd)).toBeUndefined();
  });

  it("agrees with URL whenever it answers", () => {
    const segment = fc.string({
      unit: fc.constantFrom("a", "Z", "0", "-", ".", "_", "~", "%", "2", "e", " ", "é", "\\", ":", "@"),
    });
    const url = fc
      .tuple(fc.array(segment, { maxLength: 5 }), fc.boolean(), fc.constantFrom("", "?a=1", "#h", "?q=/x#y"))
      .map(
        ([segments, slash, tail]) => `http://127.0.0.1:3000/${segments.join("/")}${slash ? "/" : ""}${tail}`,
      );
    fc.assert(
      fc.property(url, (u) => {
        const plain = plainPathname(u);
        if (plain !== undefined) expect(plain).toBe(new URL(u).pathname);
      }),
      { numRuns: 5000 },
    );
  });
});
