import { describe, expect, it } from "vitest";
import { csvCell, csvText } from "./csv";

describe("csv", () => {
  it("quotes a cell with a comma, quote, CR or LF, doubling its quotes", () => {
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell("a\rb")).toBe('"a\rb"');
    expect(csvCell("a\nb")).toBe('"a\nb"');
    expect(csvCell("plain")).toBe("plain");
  });

  it("neutralises a text a spreadsheet would run as a formula, but not a number", () => {
    for (const f of ["=1+2", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(csvCell(f)).toMatch(/^"'/);
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
  });

  it("joins rows with CRLF and ends with one", () => {
    expect(csvText([["a", 1], [], ["b", null]])).toBe("a,1\r\n\r\nb,\r\n");
  });
});
