import { useMemo, useState } from "react";
import { DataTable } from "../route-kit/DataTable";
import { formatNumber, plural } from "../ui/format";
import { fhirTable, shortDate } from "./fhir";

const PAGE = 50;

/**
 * Pulled records: a readable table of the FHIR resources (filter by resource type), and the raw
 * JSON as received from the data plane, to read or to save.
 */
export function FhirRecords({ data, name }: { data: unknown; name: string }) {
  const table = useMemo(() => fhirTable(data), [data]);
  const raw = useMemo(() => JSON.stringify(data, null, 2), [data]);
  const [type, setType] = useState<string | null>(null);
  const [limit, setLimit] = useState(PAGE);
  const rows = type ? table.rows.filter((r) => r.resourceType === type) : table.rows;
  const shown = rows.slice(0, limit);
  const save = () => {
    const url = URL.createObjectURL(new Blob([raw], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${name}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <section className="ds-records" data-testid="transfer-data" aria-labelledby="transfer-data-title">
      <div className="ds-records-head">
        <h2 id="transfer-data-title">Received data</h2>
        <p className="muted" data-testid="transfer-data-summary">
          {table.shape} · {plural(table.rows.length, "resource")}
          {table.total !== null && table.total !== table.rows.length
            ? ` (the bundle says ${formatNumber(table.total)})`
            : ""}
        </p>
      </div>
      {table.rows.length ? (
        <>
          <div className="ds-type-filter" role="group" aria-label="Filter by resource type">
            {[{ type: null, count: table.rows.length }, ...table.types].map((t) => (
              <button
                key={t.type ?? ""}
                type="button"
                className="chip"
                aria-pressed={type === t.type}
                data-testid={t.type ? `transfer-data-type-${t.type}` : undefined}
                onClick={() => {
                  setType(t.type);
                  setLimit(PAGE);
                }}
              >
                {t.type ?? "All"} ({formatNumber(t.count)})
              </button>
            ))}
          </div>
          <div className="table-wrap card flush">
            <DataTable
              className="data compact ds-fhir"
              data-testid="transfer-data-table"
              caption={
                <caption className="visually-hidden">
                  {type ?? "All"} resources received, {formatNumber(rows.length)} rows
                </caption>
              }
              columns={["Type", "Date", "Description", "Code", "Value", "Status", "Patient"]}
            >
              {shown.map((r) => (
                <tr key={r.key} data-testid="transfer-data-row" data-type={r.resourceType}>
                  <td>
                    <span className={`ds-rtype ds-rtype-${r.resourceType}`}>{r.resourceType}</span>
                  </td>
                  <td className="nowrap">{shortDate(r.date)}</td>
                  <td>{r.text}</td>
                  <td className="nowrap">
                    {r.code ? (
                      <>
                        <span className="muted small">{r.system}</span> <code>{r.code}</code>
                      </>
                    ) : null}
                  </td>
                  <td>{r.value}</td>
                  <td>{r.status}</td>
                  <td className="wrap small">
                    <code>{r.patient}</code>
                  </td>
                </tr>
              ))}
            </DataTable>
          </div>
          {rows.length > shown.length ? (
            <p>
              <button type="button" className="button ghost small" onClick={() => setLimit(rows.length)}>
                Show all {formatNumber(rows.length)} rows
              </button>
            </p>
          ) : null}
        </>
      ) : (
        <p className="notice">The data holds no FHIR resources to tabulate; see the raw JSON below.</p>
      )}
      <details className="ds-raw" data-testid="transfer-data-raw">
        <summary>Raw JSON ({formatNumber(raw.length)} characters)</summary>
        <p className="actions">
          <button type="button" className="button ghost small" onClick={save}>
            Save as JSON
          </button>
        </p>
        <pre tabIndex={0}>{raw}</pre>
      </details>
    </section>
  );
}
