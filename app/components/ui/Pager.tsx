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
        {offset > 0 ? (
          <AppLink
            className="button ghost small"
            to={hrefFor(Math.max(0, offset - limit))}
            rel="prev"
            data-testid="pager-prev"
          >
            ← Previous
          </AppLink>
        ) : (
          <span className="button ghost small" aria-disabled="true">
            ← Previous
          </span>
        )}
        {hasMore ? (
          <AppLink
            className="button ghost small"
            to={hrefFor(offset + limit)}
            rel="next"
            data-testid="pager-next"
          >
            Next →
          </AppLink>
        ) : (
          <span className="button ghost small" aria-disabled="true">
            Next →
          </span>
        )}
      </span>
    </nav>
  );
}
