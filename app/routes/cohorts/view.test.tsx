import { renderToStaticMarkup } from "react-dom/server";
import type { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { describe, expect, it, vi } from "vitest";

// the view as the loader hands it an answer: its Remix hooks read a fixed loader result
const data = vi.hoisted(() => ({ current: null as unknown }));
vi.mock(import("@remix-run/react"), async (actual) => ({
  ...(await actual()),
  useLoaderData: (() => data.current) as typeof useLoaderData,
  useNavigation: () => ({ state: "idle" }) as ReturnType<typeof useNavigation>,
  Form: ((props: Record<string, unknown>) => <form {...props} />) as typeof Form,
}));
const { default: Cohorts } = await import("./route");

const shown = (key: string, count: number) => ({ key, count, suppressed: false, display: String(count) });
const withheld = (key: string) => ({
  key,
  count: null,
  suppressed: true,
  reason: "small-count",
  display: "<5 or withheld",
});

/**
 * A cohort of 9 in two environments, 3 and 6: the 3 is below k, the 6 is suppressed with it so that
 * the 3 cannot be recomputed from the total. Both are published alike (server/federated/suppression.ts).
 */
const summary = {
  criteria: {},
  k: 5,
  cohort: shown("cohort", 9),
  environments: ["alphaklinik-berlin", "lmc"].map((holder) => ({
    ...withheld(holder),
    holder,
    name: holder,
    environment: `${holder} secure processing environment`,
  })),
  strata: {
    gender: [shown("female", 9), shown("male", 0)],
    ageBand: [withheld("18-39"), withheld("40-64"), shown("65+", 0)],
  },
  suppression: {
    rule: "Counts from 1 to 4 are suppressed (k = 5)",
    counts: { "below-k": 2, complementary: 2, "parent-suppressed": 0, differencing: 0 },
    differencingChecked: [],
  },
  method: [],
  ageReferenceDate: "2026-01-01",
  graphVersion: 1,
  generatedAt: "2026-12-01T00:00:00.000Z",
};

describe("cohorts view", () => {
  it("marks a count below k and its complementary sibling alike, and claims '<k' for neither", () => {
    data.current = {
      options: { k: 5, conditions: [], drugs: [], measurements: [], ageBands: [] },
      values: {},
      summary,
      error: null,
    };
    const html = renderToStaticMarkup(<Cohorts />);
    const marks = [
      ...html.matchAll(
        /<span class="ins-suppressed" title="([^"]*)" data-testid="suppressed-cell">([^<]*)</g,
      ),
    ];
    // the two environments' counts, then the legend's sample mark
    expect(marks.map(([, title, text]) => [title, text])).toEqual([
      ["Suppressed (fewer than k patients, or would let such a count be recomputed)", "suppressed"],
      ["Suppressed (fewer than k patients, or would let such a count be recomputed)", "suppressed"],
      ["Suppressed to protect small groups", "suppressed"],
    ]);
    expect(html).toContain('data-testid="environments"');
    // nor the age bands' chart: no suppressed count reads "<5"
    expect(html).not.toContain("&lt;5");
  });
});
