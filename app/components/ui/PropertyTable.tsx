import { displayValue, humanize, isHttpUrl } from "./format";
import { ExternalLink } from "./ExternalLink";
import { purposeLabel, roleLabel, stateLabel } from "./labels";

/** enumerated values read through the label catalogue (the stored code stays readable as a tooltip) */
function labelled(key: string, v: unknown): string | null {
  if (typeof v !== "string") return null;
  if (key === "purpose") return purposeLabel(v);
  if (key === "state" || key === "status") return stateLabel(v);
  if (key === "role" || key === "ehdsParticipantType") return roleLabel(v);
  return null;
}

/** Key/value fallback for free-form objects (node properties, clinical items of unknown shape). */
export function PropertyTable({
  properties,
  omit = [],
  caption,
  testId,
  rawKeys = false,
}: {
  properties: Record<string, unknown>;
  omit?: readonly string[];
  caption?: string;
  testId?: string;
  /** show keys as stored (camelCase) instead of humanised */
  rawKeys?: boolean;
}) {
  const entries = Object.entries(properties).filter(
    ([k, v]) => !omit.includes(k) && v !== undefined && v !== null && v !== "",
  );
  if (!entries.length) return <p className="muted">No properties.</p>;
  return (
    <table className="data kv" data-testid={testId}>
      {caption ? <caption>{caption}</caption> : null}
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{rawKeys ? <code>{k}</code> : humanize(k)}</th>
            <td>
              {isHttpUrl(v) ? (
                <ExternalLink href={v} />
              ) : labelled(k, v) !== null && labelled(k, v) !== v ? (
                <span className="wrap" title={String(v)}>
                  {labelled(k, v)}
                </span>
              ) : (
                <span className="wrap">{displayValue(v)}</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
