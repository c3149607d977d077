import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireRole } from "../../session.server";
import { ANALYTICS_ROLES } from "../../lib/access.server";

/** GET /analytics.csv: the dashboard as CSV, with the caller's scope applied (suppressed cells empty, flagged). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, ANALYTICS_ROLES);
  const { analytics } = context.services;
  const d = await analytics.dashboard(user, { top: 50 });
  return new Response(analytics.toCsv(d), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="omop-analytics-v${d.graphVersion}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
