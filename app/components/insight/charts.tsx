/**
 * Charts of the insight views as inline SVG (the CSP allows no outside resources and no inline
 * scripts). Every chart has a text equivalent: the values are printed beside the bars, and a
 * suppressed value is drawn as a hatched placeholder and printed as "suppressed" (Suppressed below) —
 * never as a length that would give the count away.
 */
import { formatNumber } from "../ui/format";

export interface Datum {
  key: string;
  label: string;
  /** null when suppressed */
  value: number | null;
  /** what to print (defaults to the value) */
  display?: string;
  suppressed?: boolean;
  /** a second, quieter text after the label */
  note?: string;
}

const pct = (v: number, max: number) => (max > 0 ? Math.max(0.5, (v / max) * 100) : 0);

/** horizontal bars: one row per datum, label, bar, value */
export function BarChart({ title, data, testId }: { title: string; data: Datum[]; testId?: string }) {
  const max = Math.max(0, ...data.map((d) => d.value ?? 0));
  return (
    <figure className="ins-chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      {data.length === 0 ? <p className="muted small">Nothing to show.</p> : null}
      <ul className="ins-bars">
        {data.map((d) => (
          <li key={d.key} className={d.suppressed ? "suppressed" : undefined}>
            <span className="ins-bar-label" title={d.label}>
              {d.label}
              {d.note ? <span className="muted small"> {d.note}</span> : null}
            </span>
            <svg
              className="ins-bar"
              viewBox="0 0 100 10"
              preserveAspectRatio="none"
              aria-hidden="true"
              focusable="false"
            >
              <rect className="ins-bar-track" x="0" y="0" width="100" height="10" />
              {d.suppressed || d.value === null ? (
                <rect className="ins-bar-hatch" x="0" y="0" width="100" height="10" />
              ) : (
                <rect className="ins-bar-fill" x="0" y="0" width={pct(d.value, max)} height="10" />
              )}
            </svg>
            <span className="ins-bar-value num">
              {d.suppressed ? <Suppressed /> : (d.display ?? formatNumber(d.value))}
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** a distribution over ordered categories (age bands): columns in one SVG */
export function ColumnChart({
  id,
  title,
  data,
  testId,
}: {
  id: string;
  title: string;
  data: Datum[];
  testId?: string;
}) {
  const w = 64;
  const gap = 10;
  const h = 140;
  const width = data.length * (w + gap);
  const max = Math.max(0, ...data.map((d) => d.value ?? 0));
  const hatch = `ins-hatch-${id}`;
  const summary = data
    .map((d) => `${d.label}: ${d.suppressed ? "suppressed" : formatNumber(d.value)}`)
    .join("; ");
  return (
    <figure className="ins-chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <svg
        className="ins-columns"
        viewBox={`0 0 ${width} ${h + 40}`}
        role="img"
        aria-label={`${title}: ${summary}`}
      >
        <defs>
          <pattern
            id={hatch}
            width="6"
            height="6"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(45)"
          >
            <rect width="6" height="6" className="ins-hatch-bg" />
            <line x1="0" y1="0" x2="0" y2="6" className="ins-hatch-line" />
          </pattern>
        </defs>
        {data.map((d, i) => {
          const x = i * (w + gap) + gap / 2;
          const suppressed = d.suppressed || d.value === null;
          const bh = suppressed ? h * 0.25 : max ? ((d.value ?? 0) / max) * h : 0;
          return (
            <g key={d.key}>
              <rect
                x={x}
                y={h - bh + 16}
                width={w}
                height={bh}
                className={suppressed ? undefined : "ins-col-fill"}
                fill={suppressed ? `url(#${hatch})` : undefined}
              />
              <text x={x + w / 2} y={h - bh + 11} textAnchor="middle" className="ins-col-value">
                {suppressed ? "suppressed" : formatNumber(d.value)}
              </text>
              <text x={x + w / 2} y={h + 32} textAnchor="middle" className="ins-col-label">
                {d.label}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** a share of a whole as a thin bar */
export function Meter({ value, label, testId }: { value: number; label: string; testId?: string }) {
  const v = Math.max(0, Math.min(100, value));
  const tone = v >= 90 ? "ok" : v >= 50 ? "warn" : "danger";
  return (
    <span className="ins-meter" data-testid={testId}>
      <svg viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label={label}>
        <rect className="ins-bar-track" x="0" y="0" width="100" height="8" rx="2" />
        <rect className={`ins-meter-${tone}`} x="0" y="0" width={v} height="8" rx="2" />
      </svg>
      <span className="num small">{v.toLocaleString("en-GB", { maximumFractionDigits: 1 })}%</span>
    </span>
  );
}

/**
 * How a suppressed count reads everywhere: one mark, "suppressed", whatever the reason. Not "<k": a
 * count withheld to protect a small one may be k or more, and a mark that differs between the two
 * would say which of two suppressed siblings is the small one.
 */
export function Suppressed({ display, reason }: { display?: string; reason?: string }) {
  return (
    <span
      className="ins-suppressed"
      title={reason ? `Suppressed (${reasonText(reason)})` : "Suppressed to protect small groups"}
      data-testid="suppressed-cell"
    >
      {display ?? "suppressed"}
    </span>
  );
}

const REASONS: Record<string, string> = {
  "small-count": "fewer than k patients, or would let such a count be recomputed",
  "parent-suppressed": "its total is suppressed",
  differencing: "differs by fewer than k from the same count of a broader query",
  "derived-from-suppressed": "computed from a suppressed count",
};

export const reasonText = (reason: string) => REASONS[reason] ?? reason;
