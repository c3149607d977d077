import { expect, it } from "vitest";
import { safeRedirect } from "./safe-redirect";

it("allows only same-site relative paths", () => {
  expect(safeRedirect("/catalogue?q=x")).toBe("/catalogue?q=x");
  for (const bad of [
    "https://evil.example",
    "//evil.example",
    "/\\evil.example",
    "javascript:alert(1)",
    "",
    null,
    undefined,
    "/auth/login?x",
    "/x\r\nSet-Cookie: a",
  ]) {
    expect(safeRedirect(bad as string)).toBe("/");
  }
  expect(safeRedirect("evil", "/home")).toBe("/home");
});

it("keeps any other character percent-encoded, so that a Location header can carry it", () => {
  expect(safeRedirect("/catalogue?q=é 漢")).toBe("/catalogue?q=%C3%A9%20%E6%BC%A2");
  expect(safeRedirect("/x?e=😀")).toBe("/x?e=%F0%9F%98%80");
  // what it keeps is its own fixed point (the callback reads it back from a cookie and checks it again)
  expect(safeRedirect(safeRedirect("/café"))).toBe("/caf%C3%A9");
  // a lone surrogate cannot be put in a URL
  expect(safeRedirect("/x\uD800y")).toBe("/");
  expect(safeRedirect("/x\u0000")).toBe("/");
  expect(() => new Headers({ Location: safeRedirect("/ŝ?x=ĉ") })).not.toThrow();
});
