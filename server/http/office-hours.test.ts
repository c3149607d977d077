import { describe, expect, it } from "vitest";
import { DEFAULT_TIME_ZONE, formatOpening, officeStatus, parseOfficeHours } from "./office-hours";

const weekdays = parseOfficeHours("Mon-Fri 07:00-20:00 Europe/Berlin");

/** The status at an instant given as an ISO string. */
function at(iso: string, holds: string[] = [], hours = weekdays) {
  return officeStatus(hours, holds, new Date(iso));
}

/** The next opening at an instant, as a UTC ISO string. */
function nextOpening(iso: string, holds: string[] = [], hours = weekdays) {
  const status = at(iso, holds, hours);
  if (status.open) throw new Error(`expected closed at ${iso}`);
  return status.nextOpening?.toISOString() ?? null;
}

describe("parseOfficeHours", () => {
  it("parses a day range, a time range and a zone", () => {
    expect(weekdays.timeZone).toBe("Europe/Berlin");
    expect(weekdays.windows).toEqual([1, 2, 3, 4, 5].map((day) => ({ day, open: 420, close: 1200 })));
  });

  it("parses lists, single days, 24:00 and canonicalises day and zone case", () => {
    const hours = parseOfficeHours(
      "  mon-THU 07:00-20:00,  Fri 7:00-16:30, sat 09:00-24:00   europe/berlin ",
    );
    expect(hours).toEqual({
      timeZone: "Europe/Berlin",
      windows: [
        { day: 1, open: 420, close: 1200 },
        { day: 2, open: 420, close: 1200 },
        { day: 3, open: 420, close: 1200 },
        { day: 4, open: 420, close: 1200 },
        { day: 5, open: 420, close: 990 },
        { day: 6, open: 540, close: 1440 },
      ],
    });
  });

  it("lets day ranges wrap around the week", () => {
    expect(parseOfficeHours("Fri-Mon 10:00-12:00 UTC").windows.map((w) => w.day)).toEqual([5, 6, 0, 1]);
  });

  it("keeps several windows on one day (split shifts)", () => {
    const hours = parseOfficeHours("Mon 07:00-12:00, Mon 13:00-18:00 UTC");
    expect(at("2026-11-23T12:30:00Z", [], hours)).toMatchObject({ open: false });
    expect(nextOpening("2026-11-23T12:30:00Z", [], hours)).toBe("2026-11-23T13:00:00.000Z");
  });

  it.each([
    ["", /needs days, a time range and a time zone/],
    ["Europe/Berlin", /needs days, a time range and a time zone/],
    ["Mon-Fri 07:00-20:00", /last part must be an IANA time zone such as Europe\/Berlin, got "07:00-20:00"/],
    ["Mon-Fri 07:00-20:00 Mars/Olympus", /IANA time zone .* got "Mars\/Olympus"/],
    ["Mon-Fry 07:00-20:00 Europe/Berlin", /unknown day "Fry" in "Mon-Fry 07:00-20:00"/],
    ["Mon-Wed-Fri 07:00-20:00 UTC", /"Mon-Wed-Fri" .* must be one day or a range/],
    ["Mon-Mon 07:00-20:00 UTC", /day range "Mon-Mon" .* two different days/],
    ["Mon-Fri 07-20 UTC", /"07-20" in "Mon-Fri 07-20" is not a time range like 07:00-20:00/],
    ["Mon-Fri 07:00-25:00 UTC", /"25:00" in "Mon-Fri 07:00-25:00" is not a time between 00:00 and 24:00/],
    ["Mon-Fri 07:60-20:00 UTC", /"07:60" .* is not a time between/],
    ["Mon-Fri 24:00-24:00 UTC", /opening time 24:00 .* is not a time of day/],
    [
      "Mon-Fri 20:00-07:00 UTC",
      /closing time 07:00 in "Mon-Fri 20:00-07:00" must be after opening time 20:00/,
    ],
    ["Mon-Fri 07:00-07:00 UTC", /closing time 07:00 .* must be after opening time 07:00/],
    ["Mon-Fri 07:00-20:00, UTC", /empty entry between commas/],
    ["Mon-Fri UTC", /"Mon-Fri" must be days and a time range/],
    ["Mon-Fri 07:00-12:00 13:00-18:00 UTC", /must be days and a time range/],
  ])("rejects %j with a readable message", (spec, message) => {
    expect(() => parseOfficeHours(spec)).toThrow(message);
  });
});

describe("officeStatus", () => {
  it("is open inside the hours", () => {
    expect(at("2026-11-25T11:00:00Z")).toEqual({ open: true }); // Wednesday 12:00 in Berlin
  });

  it("opens exactly at the opening time and closes exactly at the closing time", () => {
    expect(at("2026-11-23T05:59:59.999Z").open).toBe(false); // Monday 06:59:59.999 CET
    expect(at("2026-11-23T06:00:00Z").open).toBe(true); // 07:00
    expect(at("2026-11-23T18:59:59.999Z").open).toBe(true); // 19:59:59.999
    expect(at("2026-11-23T19:00:00Z")).toEqual({
      open: false,
      reason: "outside-hours",
      nextOpening: new Date("2026-11-24T06:00:00Z"),
      retryAfterSeconds: 11 * 3600,
    });
  });

  it("is closed at the weekend and opens on Monday morning", () => {
    expect(at("2026-11-21T12:00:00Z")).toMatchObject({ open: false, reason: "outside-hours" }); // Saturday
    expect(nextOpening("2026-11-21T12:00:00Z")).toBe("2026-11-23T06:00:00.000Z");
  });

  it("opens later the same day when now is before the opening time", () => {
    expect(nextOpening("2026-11-23T02:00:00Z")).toBe("2026-11-23T06:00:00.000Z");
  });

  it("reads the hours in their own time zone", () => {
    const tokyo = parseOfficeHours("Mon-Fri 09:00-17:00 Asia/Tokyo");
    expect(at("2026-11-23T00:00:00Z", [], tokyo).open).toBe(true); // Monday 09:00 JST
    expect(nextOpening("2026-11-22T12:00:00Z", [], tokyo)).toBe("2026-11-23T00:00:00.000Z");
  });

  it("rounds Retry-After up to whole seconds until the next opening", () => {
    expect(at("2026-11-23T05:59:59.001Z")).toMatchObject({ retryAfterSeconds: 1 });
    expect(at("2026-11-23T05:58:20.500Z")).toMatchObject({ retryAfterSeconds: 100 });
  });

  describe("holds", () => {
    it("keeps a hold day closed during the hours and skips it", () => {
      expect(at("2026-11-23T10:00:00Z", ["2026-11-23"])).toEqual({
        open: false,
        reason: "hold",
        nextOpening: new Date("2026-11-24T06:00:00Z"),
        retryAfterSeconds: 20 * 3600,
      });
    });

    it("skips a hold on the following day", () => {
      expect(nextOpening("2026-11-23T20:00:00Z", ["2026-11-24"])).toBe("2026-11-25T06:00:00.000Z");
      expect(at("2026-11-23T20:00:00Z", ["2026-11-24"])).toMatchObject({ reason: "outside-hours" });
    });

    it("counts hold dates in the hours' time zone", () => {
      // Tuesday 00:30 in Berlin is still Monday 23:30 in UTC: the Tuesday hold already applies.
      expect(at("2026-11-23T23:30:00Z", ["2026-11-24"])).toMatchObject({ reason: "hold" });
      expect(at("2026-11-23T22:30:00Z", ["2026-11-24"])).toMatchObject({ reason: "outside-hours" });
    });

    it("without hours is always open except on hold days, counted in Europe/Berlin", () => {
      expect(DEFAULT_TIME_ZONE).toBe("Europe/Berlin");
      expect(officeStatus(undefined, [], new Date("2026-12-24T03:00:00Z"))).toEqual({ open: true });
      expect(officeStatus(undefined, ["2026-12-24", "2026-12-25"], new Date("2026-12-24T12:00:00Z"))).toEqual(
        {
          open: false,
          reason: "hold",
          nextOpening: new Date("2026-12-25T23:00:00Z"), // 26 December 00:00 CET
          retryAfterSeconds: 35 * 3600,
        },
      );
      // 23:30 UTC on the 23rd is already the 24th in Berlin
      expect(officeStatus(undefined, ["2026-12-24"], new Date("2026-12-23T23:30:00Z")).open).toBe(false);
    });

    it("gives no next opening when every opening within the search horizon is held", () => {
      const mondays = parseOfficeHours("Mon 07:00-08:00 UTC");
      const everyMonday = Array.from({ length: 60 }, (_, i) =>
        new Date(Date.UTC(2026, 10, 23) + i * 7 * 86_400_000).toISOString().slice(0, 10),
      );
      expect(at("2026-11-23T07:30:00Z", everyMonday, mondays)).toEqual({
        open: false,
        reason: "hold",
        nextOpening: null,
        retryAfterSeconds: 86_400,
      });
    });
  });

  describe("daylight saving time (Europe/Berlin)", () => {
    it("opens at 07:00 summer time after the clocks went forward on 29 March 2026", () => {
      // Friday 20:00 CET -> Monday 07:00 CEST is 59 wall-clock hours but only 58 real ones
      expect(at("2026-03-27T19:00:00Z")).toMatchObject({
        nextOpening: new Date("2026-03-30T05:00:00Z"),
        retryAfterSeconds: 58 * 3600,
      });
      expect(at("2026-03-30T04:59:59Z").open).toBe(false);
      expect(at("2026-03-30T05:00:00Z").open).toBe(true);
    });

    it("opens at 07:00 winter time after the clocks went back on 25 October 2026", () => {
      expect(at("2026-10-23T18:00:00Z")).toMatchObject({
        nextOpening: new Date("2026-10-26T06:00:00Z"),
        retryAfterSeconds: 60 * 3600,
      });
    });

    it("opens at the first valid instant when the opening time falls into the spring-forward gap", () => {
      const hours = parseOfficeHours("Sun 02:30-05:00 Europe/Berlin");
      // 02:30 does not exist on 29 March 2026: 02:00 CET jumps to 03:00 CEST (01:00 UTC)
      expect(nextOpening("2026-03-29T00:00:00Z", [], hours)).toBe("2026-03-29T01:00:00.000Z");
      expect(at("2026-03-29T00:59:59Z", [], hours).open).toBe(false);
      expect(at("2026-03-29T01:00:00Z", [], hours).open).toBe(true);
    });

    it("opens again at the second occurrence of a wall time repeated when the clocks go back", () => {
      const hours = parseOfficeHours("Sun 02:30-02:45 Europe/Berlin");
      // 02:30 happens twice on 25 October 2026: 00:30 UTC (CEST) and 01:30 UTC (CET)
      expect(nextOpening("2026-10-25T00:00:00Z", [], hours)).toBe("2026-10-25T00:30:00.000Z");
      expect(nextOpening("2026-10-25T00:50:00Z", [], hours)).toBe("2026-10-25T01:30:00.000Z");
    });

    it("opens at the moment the clocks go back into a window", () => {
      const hours = parseOfficeHours("Sun 01:00-02:30 Europe/Berlin");
      // 02:40 CEST is closed; at 01:00 UTC the clocks show 02:00 CET again, inside the window
      expect(nextOpening("2026-10-25T00:40:00Z", [], hours)).toBe("2026-10-25T01:00:00.000Z");
    });
  });

  it("handles a zone whose midnight is skipped (America/Santiago, 6 September 2026)", () => {
    const hours = parseOfficeHours("Sun 00:00-12:00 America/Santiago");
    // Saturday 23:30 (UTC-4); Sunday starts at 01:00 (UTC-3), i.e. 04:00 UTC
    expect(nextOpening("2026-09-06T03:30:00Z", [], hours)).toBe("2026-09-06T04:00:00.000Z");
  });
});

describe("formatOpening", () => {
  it("names the day, date, local time and zone", () => {
    expect(formatOpening(new Date("2026-11-23T06:00:00Z"), "Europe/Berlin")).toBe(
      "Monday, 23 November 2026, 07:00 (Europe/Berlin)",
    );
  });

  it("uses local summer time", () => {
    expect(formatOpening(new Date("2026-06-01T05:00:00Z"), "Europe/Berlin")).toBe(
      "Monday, 1 June 2026, 07:00 (Europe/Berlin)",
    );
  });
});
