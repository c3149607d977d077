import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action } from "./route";

/** /transfers/{id}: the pull form's action. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const pull = async (id: string, fields: Record<string, string>) =>
  action({
    request: await h.post("researcher", `/transfers/${id}`, fields),
    context: h.context,
    params: { id },
  });

describe("transfer pull action", () => {
  it("reads its fields trimmed, as the other dataspace forms do: the own context with spaces around is the own", async () => {
    const own = await pull("no-such-transfer", { participant: "pharmaco" });
    expect(own.ok).toBe(false);
    expect(await pull("no-such-transfer", { participant: " pharmaco " })).toEqual(own);
  });
});
