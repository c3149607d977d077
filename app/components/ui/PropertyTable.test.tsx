import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PropertyTable } from "./PropertyTable";

describe("PropertyTable", () => {
  it("reads purposes and states through the label catalogue and keeps the stored code as a tooltip", () => {
    const html = renderToStaticMarkup(
      <PropertyTable
        rawKeys
        properties={{
          purpose: "scientificResearch",
          state: "awaitingPermit",
          role: "DATA_HOLDER",
          ehdsParticipantType: "HEALTH_DATA_HOLDER",
          title: "Cohort A",
        }}
      />,
    );
    expect(html).not.toMatch(/>scientificResearch</);
    expect(html).not.toMatch(/>awaitingPermit</);
    expect(html).not.toMatch(/>DATA_HOLDER</);
    expect(html).not.toMatch(/>HEALTH_DATA_HOLDER</);
    expect(html).toContain("Health data holder");
    expect(html).toContain('title="scientificResearch"');
    expect(html).toContain("Cohort A");
  });
});
