import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { WhoLooked } from "./WhoLooked";

describe("WhoLooked", () => {
  it("gives every look's time of day with its zone, in the cell itself (issue 40: times always with their zone)", () => {
    const html = renderToStaticMarkup(
      <WhoLooked
        looks={[
          {
            id: "a1",
            actor: "admin",
            action: "patient.page.read",
            outcome: "success",
            timestamp: "2026-11-29T22:52:24.123Z",
          },
        ]}
      />,
    );
    expect(html).toContain(">2026-11-29 22:52:24 UTC</time>");
    expect(html).toContain("opened your record");
  });
});
