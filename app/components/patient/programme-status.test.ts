import { describe, expect, it } from "vitest";
import { programmeStatus } from "./PatientProfileView";

describe("a programme's permit status on a given day", () => {
  it("is expired after the permit's last day, whatever the marketplace still says", () => {
    expect(programmeStatus("GRANTED", "2026-11-26", "2026-11-27")).toBe("EXPIRED");
    expect(programmeStatus("GRANTED", "2026-11-27", "2026-11-27")).toBe("GRANTED");
    expect(programmeStatus("GRANTED", null, "2026-11-27")).toBe("GRANTED");
  });

  it("keeps any other status as it is", () => {
    expect(programmeStatus("REVOKED", "2020-01-01", "2026-11-27")).toBe("REVOKED");
    expect(programmeStatus(undefined, "2020-01-01", "2026-11-27")).toBeNull();
  });
});
