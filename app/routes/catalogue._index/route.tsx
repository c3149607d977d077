import { useRouteLoaderData } from "@remix-run/react";
import type { loader as catalogueLoader } from "../catalogue/route";
import { formatNumber } from "../../components/ui/format";

/** The detail pane before a dataset is chosen: a short summary of what the list holds. */
export default function CatalogueIndex() {
  const data = useRouteLoaderData<typeof catalogueLoader>("routes/catalogue");
  if (!data) return null;
  const { results } = data;
  if (!results.length) return null;
  const personal = results.filter((d) => d.personalData).length;
  const sensitive = results.filter((d) => d.sensitiveData).length;
  const records = results.reduce((s, d) => s + (d.recordCount ?? 0), 0);
  const publishers = new Set(results.map((d) => d.publisher)).size;
  return (
    <aside className="card detail-placeholder" data-testid="catalogue-summary">
      <h2>In this selection</h2>
      <dl className="summary-grid">
        <div>
          <dt>Datasets</dt>
          <dd>{formatNumber(results.length)}</dd>
        </div>
        <div>
          <dt>Publishers</dt>
          <dd>{formatNumber(publishers)}</dd>
        </div>
        <div>
          <dt>Records</dt>
          <dd>{formatNumber(records)}</dd>
        </div>
        <div>
          <dt>With personal data</dt>
          <dd>{formatNumber(personal)}</dd>
        </div>
        <div>
          <dt>With sensitive data</dt>
          <dd>{formatNumber(sensitive)}</dd>
        </div>
      </dl>
      <p className="muted">Choose a dataset to see its full HealthDCAT-AP description.</p>
    </aside>
  );
}
