import type { OdrlScope } from "../../types";
import { Badge } from "../ui/Badge";
import { odrlActionLabel, roleLabel, withPurposeNames } from "../ui/labels";

/** The caller's ODRL scope as an answer applied it. */
export function ScopePanel({ scope, title = "Your scope" }: { scope: OdrlScope; title?: string }) {
  return (
    <aside className="card ins-scope" data-testid="scope">
      <h2>{title}</h2>
      <div className="tags">
        <Badge tone="info">{roleLabel(scope.role)}</Badge>
        <Badge tone="ok">aggregate only</Badge>
        {scope.k === null ? (
          <Badge tone="neutral">exact counts</Badge>
        ) : (
          <Badge tone="warn">k = {scope.k}</Badge>
        )}
        {scope.prohibitions.map((p) => (
          <Badge key={p} tone="danger">
            prohibited: {odrlActionLabel(p)}
          </Badge>
        ))}
      </div>
      <ul className="small">
        {scope.applied.map((a) => (
          <li key={a}>{withPurposeNames(a)}</li>
        ))}
      </ul>
      {scope.policies.length ? (
        <p className="muted small">
          From ODRL {scope.policies.map((p) => `${p.type} ${p.id}`).join(", ")}
          {scope.obligations.length
            ? `; obligations: ${scope.obligations.map(odrlActionLabel).join(", ")}`
            : ""}
          .
        </p>
      ) : null}
    </aside>
  );
}
