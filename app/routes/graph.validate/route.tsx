import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { LAYERS } from "../../../server/graph/model";
import { Badge } from "../../components/ui/Badge";
import { formatDateTime, formatNumber } from "../../components/ui/format";
import { layerLabel } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES } from "../../lib/access.server";
import { DataTable, num } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Graph validation · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, GRAPH_ROLES);
  return { validation: await context.services.graphQueries.validate() };
}

export default function GraphValidation() {
  const { validation: v } = useLoaderData<typeof loader>();
  const failed = v.constraints.filter((c) => !c.ok).length;
  const relTypes = Object.entries(v.relationshipTypes).sort((a, b) => b[1] - a[1]);
  return (
    <div className="graph-validation" data-testid="graph-validation">
      <div
        className={`card validation-summary ${v.valid ? "ok" : "failed"}`}
        role="status"
        data-testid="validation-summary"
      >
        <strong data-testid="validation-verdict">
          {v.valid ? "The graph meets its schema and conventions." : "The graph breaks some of its rules."}
        </strong>
        <span className="muted">
          {formatNumber(v.totals.nodes)} nodes · {formatNumber(v.totals.edges)} relationships ·{" "}
          {v.constraints.length - failed} of {v.constraints.length} constraints met · checked{" "}
          {formatDateTime(v.checkedAt)}
        </span>
      </div>

      <h2>Nodes per layer</h2>
      <div className="layer-grid" data-testid="validation-layers">
        {LAYERS.map((l) => {
          const layer = v.layers[l];
          return (
            <section
              key={l}
              className={`card stat layer-${l}`}
              aria-labelledby={`layer-${l}-title`}
              data-testid={`validation-layer-${l}`}
            >
              <h3 id={`layer-${l}-title`} className="stat-label">
                {layerLabel(l)}
              </h3>
              <span className="stat-value">{formatNumber(layer.nodes)}</span>
              <DataTable className="data compact" columns={["Label", num("Nodes")]}>
                {Object.entries(layer.labels).map(([label, n]) => (
                  <tr key={label}>
                    <td>{label}</td>
                    <td className={`num${n === 0 ? " muted" : ""}`}>{formatNumber(n)}</td>
                  </tr>
                ))}
              </DataTable>
            </section>
          );
        })}
      </div>

      <div className="two-col">
        <section>
          <h2>Constraints</h2>
          <DataTable data-testid="validation-constraints" columns={["Constraint", "Result", "Detail"]}>
            {v.constraints.map((c) => (
              <tr key={c.name} data-ok={c.ok}>
                <td>{c.name}</td>
                <td>{c.ok ? <Badge tone="ok">ok</Badge> : <Badge tone="danger">failed</Badge>}</td>
                <td className="muted">{c.detail}</td>
              </tr>
            ))}
          </DataTable>

          <h2>Violations</h2>
          {v.violations.length ? (
            <DataTable data-testid="validation-violations" columns={["Kind", "Subject", "Detail"]}>
              {v.violations.map((x, i) => (
                <tr key={`${x.kind}-${x.subject}-${i}`}>
                  <td>
                    <Badge tone="danger">{x.kind}</Badge>
                  </td>
                  <td>
                    <code>{x.subject}</code>
                  </td>
                  <td>{x.detail}</td>
                </tr>
              ))}
            </DataTable>
          ) : (
            <p className="notice ok" data-testid="validation-no-violations">
              No violations: labels are PascalCase, relationship types UPPER_SNAKE_CASE, properties camelCase.
            </p>
          )}
        </section>
        <section>
          <h2>Relationship types</h2>
          <DataTable data-testid="validation-relationship-types" columns={["Type", num("Relationships")]}>
            {relTypes.map(([type, n]) => (
              <tr key={type}>
                <td>
                  <code>{type}</code>
                </td>
                <td className="num">{formatNumber(n)}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      </div>
    </div>
  );
}
