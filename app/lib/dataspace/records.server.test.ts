import { describe, expect, it, vi } from "vitest";

// the record readers are plain data: loading them must not load the session (and its cookie secrets)
vi.mock("../../session.server", () => {
  throw new Error("session.server loaded");
});

describe("connector record readers", () => {
  it("load without the session module", async () => {
    const { str, toAssetView } = await import("./records.server");
    await expect(import("../catalogue/offers.server")).resolves.toHaveProperty("offersOfDataset");
    expect(str(3)).toBe("");
    expect(toAssetView({ "@id": "a1" }).name).toBe("a1");
  });
});
