import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PropertyTable } from "./PropertyTable";

describe("PropertyTable", () => {
  it("reads purposes and states through the label catalogue and keeps the stored code as a tooltip", () => {
    const html = renderToStaticMarkup(
      <PropertyTable
        rawKeys
        properties={{ purpose: "scientificResearch", state: "awaitingPermit", title: "Cohort A" }}
      />,
    );
    expect(html).not.toMatch(/>scientificResearch</);
    expect(html).not.toMatch(/>awaitingPermit</);
    expect(html).toContain('title="scientificResearch"');
    expect(html).toContain("Cohort A");
  });
});
