import { AppLink } from "./app-link";
import { formatNumber } from "./format";

/** Offset paging through URL parameters (works without JavaScript, links are shareable). */
export function Pager({
  offset,
  limit,
  shown,
  total,
  hasMore,
  hrefFor,
  label = "items",
}: {
  offset: number;
  limit: number;
  shown: number;
  total: number | null;
  hasMore: boolean;
  /** the absolute in-app path of the page starting at `offset` */
  hrefFor: (offset: number) => string;
  label?: string;
}) {
  const from = shown ? offset + 1 : 0;
  const to = offset + shown;
  return (
    <nav className="pager" aria-label="Pages" data-testid="pager">
      <span className="muted" data-testid="pager-range">
        {shown ? `${formatNumber(from)}–${formatNumber(to)}` : "none"}
        {total !== null ? ` of ${formatNumber(total)}` : ""} {label}
      </span>
      <span className="pager-links">
        <PagerLink to={offset > 0 ? hrefFor(Math.max(0, offset - limit)) : null} rel="prev">
          ← Previous
        </PagerLink>
        <PagerLink to={hasMore ? hrefFor(offset + limit) : null} rel="next">
          Next →
        </PagerLink>
      </span>
    </nav>
  );
}

/** a link to the page before or after, or the same text greyed out where there is none */
function PagerLink({ to, rel, children }: { to: string | null; rel: "prev" | "next"; children: string }) {
  return to === null ? (
    <span className="button ghost small" aria-disabled="true">
      {children}
    </span>
  ) : (
    <AppLink className="button ghost small" to={to} rel={rel} data-testid={`pager-${rel}`}>
      {children}
    </AppLink>
  );
}
