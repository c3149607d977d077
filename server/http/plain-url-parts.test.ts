import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainPathname, queryOf } from "./api-handler";

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

describe("the query of a request URL without parsing the URL", () => {
  const entries = (q: URLSearchParams) => [...q.entries()];

  it("is what URL's searchParams holds", () => {
    expect(entries(queryOf("http://h/api/graph?layer=l3&limit=1000"))).toEqual([
      ["layer", "l3"],
      ["limit", "1000"],
    ]);
    expect(entries(queryOf("http://h/api/health"))).toEqual([]);
    expect(entries(queryOf("http://h/x?a=1#b=2"))).toEqual([["a", "1"]]);
    expect(entries(queryOf("http://h/x?q=a+b%20c&q=%C3%A9&=v&k&%zz=1"))).toEqual(
      entries(new URL("http://h/x?q=a+b%20c&q=%C3%A9&=v&k&%zz=1").searchParams),
    );
  });

  it("agrees with URL for any query", () => {
    // printable ASCII (parsed here) and anything else (left to URL: non-ASCII, space, tab)
    const unit = fc.constantFrom(
      "a",
      "Z",
      "0",
      "=",
      "&",
      "+",
      "%",
      "2",
      "C",
      "3",
      "é",
      "?",
      "/",
      "'",
      '"',
      "<",
      "[",
      "~",
      "€",
      " ",
      "\t",
      "\u00aa",
    );
    const url = fc
      .tuple(fc.string({ unit, maxLength: 40 }), fc.constantFrom("", "#", "#x=1"))
      .map(([query, hash]) => `http://127.0.0.1:3000/api/x?${query}${hash}`);
    fc.assert(
      fc.property(url, (u) => {
        expect(entries(queryOf(u))).toEqual(entries(new URL(u).searchParams));
      }),
      { numRuns: 5000 },
    );
  });
});
