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
