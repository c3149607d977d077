import type { LoaderFunctionArgs } from "@remix-run/node";
import { auditFilterFromUrl, exportTarget } from "../../lib/governance/governance.server";
import { auditCsv, CSV_MAX_ROWS, tabFilter } from "../../lib/governance/audit.server";
import { requireRole } from "../../session.server";
import { AUDIT_ROLES } from "../../lib/access.server";

/** GET /audit.csv: the audit entries the view's filters select (at most 10,000), as CSV with the hash chain columns. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, AUDIT_ROLES);
  const url = new URL(request.url);
  let filter;
  try {
    filter = auditFilterFromUrl(url, { limit: CSV_MAX_ROWS, max: CSV_MAX_ROWS });
  } catch (e) {
    return new Response(e instanceof Error ? e.message : "bad filter", {
      status: 400,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  }
  const audit = context.services.audit;
  const tab = url.searchParams.get("tab");
  const kinds = (await audit.kinds()).map((k) => k.kind);
  const entries = await context.services.auditView.list({ ...filter, ...tabFilter(tab, kinds) }, user);
  await audit.append({
    action: "audit.export",
    actor: user.username,
    // the filters' names, not the query: no GET writes text its caller chose into the log
    target: exportTarget(filter, tab),
    outcome: `${entries.length} entries`,
    kind: "audit",
  });
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(auditCsv(entries), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-${stamp}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
