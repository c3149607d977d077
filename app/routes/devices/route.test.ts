import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { requireUser } from "../../session.server";
import { loadDevicesView } from "./devices.server";
import { action } from "./route";

/** /devices: the measurement form marks the value or the time it cannot take. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const post = async (fields: Record<string, string>) =>
  action({ request: await h.post("patient2", "/devices", fields), context: h.context, params: {} });
const selfMeasured = async () => {
  const user = await requireUser(await h.request("patient2", "/devices"), h.context);
  return (await loadDevicesView(h.context.services, user)).selfMeasured.length;
};

describe("devices action: measurement entry", () => {
  it("a value that is not a number names the value field and adds nothing", async () => {
    const before = await selfMeasured();
    expect(await post({ intent: "measure", measure: "8867-4|/min", value: "fast" })).toEqual({
      intent: "measure",
      ok: false,
      message: "Enter the measured value as a number.",
      fields: [{ field: "value", message: "Enter the measured value as a number." }],
    });
    expect(await selfMeasured()).toBe(before);
  });

  it("a time that is not a time names the time field", async () => {
    expect(
      await post({ intent: "measure", measure: "8867-4|/min", value: "72", effective: "2025-13-45T99:99" }),
    ).toMatchObject({ ok: false, fields: [{ field: "effective" }] });
  });

  it("a value outside the plausible range names the value field with the service's text and adds nothing", async () => {
    const before = await selfMeasured();
    const res = await post({ intent: "measure", measure: "8867-4|/min", value: "900" });
    expect(res).toMatchObject({ intent: "measure", ok: false, fields: [{ field: "value" }] });
    expect((res as { message: string }).message).toMatch(
      /^Observation\.valueQuantity\.value: 900 .* is outside the plausible range/,
    );
    expect(await selfMeasured()).toBe(before);
  });

  it("a time in the future names the time field with the service's text", async () => {
    const res = await post({
      intent: "measure",
      measure: "8867-4|/min",
      value: "72",
      effective: "2099-01-01T10:00",
    });
    expect(res).toMatchObject({
      ok: false,
      message: "Observation.effectiveDateTime: lies in the future",
      fields: [{ field: "effective", message: "Observation.effectiveDateTime: lies in the future" }],
    });
  });

  it("a plausible value is added", async () => {
    const before = await selfMeasured();
    expect(await post({ intent: "measure", measure: "8867-4|/min", value: "72" })).toMatchObject({
      ok: true,
    });
    expect(await selfMeasured()).toBe(before + 1);
  });
});
