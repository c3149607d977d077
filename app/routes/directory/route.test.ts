import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action } from "./route";

/** /directory: the add form marks the fields the operator's directory names. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const add = async (fields: Record<string, string>) =>
  action({
    request: await h.post("admin", "/directory", { intent: "add", ...fields }),
    context: h.context,
    params: {},
  });

describe("directory action", () => {
  it("names each missing and each malformed field; nothing is added", async () => {
    const before = (await h.context.services.operator.directory()).length;
    expect(await add({ displayName: "", did: "" })).toMatchObject({
      ok: false,
      message: "did and displayName are required",
      fields: [
        { field: "did", message: "Required" },
        { field: "displayName", message: "Required" },
      ],
    });
    expect(
      await add({ displayName: "Clinic", did: "did:web:clinic.example", country: "Deutschland" }),
    ).toMatchObject({
      message: "country must be an ISO 3166-1 alpha-2 code such as DE",
      fields: [{ field: "country" }],
    });
    expect(
      await add({ displayName: "Clinic", did: "did:web:clinic.example", catalogueUrl: "ftp://x" }),
    ).toMatchObject({ fields: [{ field: "catalogueUrl" }] });
    expect(await add({ displayName: "Clinic", did: "not a did" })).toMatchObject({
      fields: [{ field: "did" }],
    });
    expect(
      await add({
        displayName: "Clinic",
        did: "did:web:clinic.example",
        dataPlaneHosts: "dp.clinic.example, https://dp.clinic.example/public",
      }),
    ).toMatchObject({ ok: false, fields: [{ field: "dataPlaneHosts" }] });
    expect((await h.context.services.operator.directory()).length).toBe(before);
  });

  it("adds the data-plane hosts written separated by commas or spaces, and lists them", async () => {
    const did = "did:web:provider.example";
    expect(
      await add({
        displayName: "Provider",
        did,
        dataPlaneHosts: " dp.provider.example,  10.0.0.7 [fd00::7]",
      }),
    ).toMatchObject({ ok: true });
    const entry = (await h.context.services.operator.directory()).find((e) => e.did === did);
    expect(entry?.dataPlaneHosts).toEqual(["dp.provider.example", "10.0.0.7", "[fd00::7]"]);
    expect(
      await add({ displayName: "Plain", did: "did:web:plain.example", dataPlaneHosts: "" }),
    ).toMatchObject({
      ok: true,
    });
    const plain = (await h.context.services.operator.directory()).find(
      (e) => e.did === "did:web:plain.example",
    );
    expect(plain?.dataPlaneHosts).toEqual([]);
  });
});
