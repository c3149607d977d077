import { formatStamp } from "../dataspace/ui";
import { formatDateTime } from "../ui/format";
import { berlin } from "./ui";

/** issue 40: some pages showed Berlin time, others UTC, unlabelled; every instant a view prints names its zone */
describe("times in the views", () => {
  it("name their zone, whichever helper prints them", () => {
    const at = "2026-04-15T12:00:00.000Z";
    expect(berlin(at)).toBe("15 Apr 2026, 14:00 Berlin time");
    expect(berlin("2026-01-15T12:00:00.000Z")).toBe("15 Jan 2026, 13:00 Berlin time");
    expect(formatDateTime(at)).toBe("15 Apr 2026, 12:00 UTC");
    expect(formatStamp(Date.parse(at))).toMatch(/UTC$/);
    expect(berlin(null)).toBe("—");
  });
});
