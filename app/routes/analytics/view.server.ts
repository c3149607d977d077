import type { AnalyticsDashboard } from "../../../server/analytics/service";
import { createKeptByInputs, EVERYONE } from "../../../server/http/kept";
import { pick } from "../../lib/pick";

/** what the page draws of a dashboard: its charts' data, the table's rows and the notes, nothing else */
export type AnalyticsView = ReturnType<typeof analyticsView>;

const keptViews = createKeptByInputs<string>(64);

/**
 * The view as JSON text, kept per dashboard answer (one frozen answer per graph version and scope), so
 * the loader sends one string (decision 0084); keyed for everyone, as the view is the dashboard's alone.
 */
export const analyticsViewText = (d: AnalyticsDashboard): Promise<string> =>
  keptViews(EVERYONE, [d], () => JSON.stringify(analyticsView(d)));

export function analyticsView(d: AnalyticsDashboard) {
  const top = (list: AnalyticsDashboard["topConditions"]) =>
    list.map((t) => ({
      key: t.code,
      label: t.display,
      note: `${t.system} ${t.code}`,
      value: t.persons,
      suppressed: t.suppressed,
      display: t.display_persons,
    }));
  const counts = <C extends AnalyticsDashboard["gender"][number]>(list: C[], label: (c: C) => string) =>
    list.map((c) => ({
      key: c.key,
      label: label(c),
      value: c.count,
      suppressed: c.suppressed,
      display: c.display,
    }));
  return {
    ...pick(d, "ageReferenceDate totals"),
    conditions: top(d.topConditions),
    drugs: top(d.topDrugs),
    gender: counts(d.gender, (g) => GENDER_LABEL[g.key] ?? g.key),
    holders: counts(d.holders, (h) => h.name),
    ageBands: counts(d.ageBands, (a) => a.key),
    measurements: d.topMeasurements.map((m) =>
      pick(m, "code display persons suppressed rows mean sd unit aboveRange belowRange"),
    ),
    ...pick(d, "scope source notes graphVersion"),
    cache: { hit: d.cache.hit, builtMs: d.cache.builtMs },
  };
}

const GENDER_LABEL: Record<string, string> = {
  female: "Female",
  male: "Male",
  other: "Other",
  unknown: "Unknown",
};
