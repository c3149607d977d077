import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { withLayerNames } from "../../components/ui/labels";
import { Meter } from "../../components/insight/charts";
import { Badge } from "../../components/ui/Badge";
import { formatNumber } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { EEHRXF_ROLES } from "../../lib/access.server";
import { DataTable, num } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "EEHRxF coverage · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, EEHRXF_ROLES);
  return { c: await context.services.eehrxf.coverage(user) };
}

/** a count, or "withheld" where the small-count rule holds it back */
const shown = (n: number | null) => (n === null ? "withheld" : formatNumber(n));

export default function Eehrxf() {
  const { c } = useLoaderData<typeof loader>();
  return (
    <section className="ins-page" data-testid="eehrxf">
      <h1>European EHR exchange format</h1>
      <p className="lead">
        The EEHRxF priority categories (EHDS Art. 14) and the HL7 Europe / IPS FHIR profiles that carry them,
        with how much of the graph's FHIR data (layer L3) has what each profile requires.{" "}
        {withLayerNames(c.source)}.
      </p>
      <div className="ins-categories">
        {c.categories.map((cat) => (
          <article key={cat.id} className="card ins-category" data-testid={`category-${cat.id}`}>
            <div className="page-head">
              <div>
                <h2>{cat.title}</h2>
                <p className="small muted">
                  {cat.legalBasis} · {cat.description}
                </p>
              </div>
              <div className="ins-readiness">
                <span className="stat-label">Complete for exchange ({cat.readiness.unit})</span>
                <span className="stat-value" data-testid="ready">
                  {shown(cat.readiness.ready)}{" "}
                  <span className="muted small">of {shown(cat.readiness.total)}</span>
                </span>
                {cat.readiness.coverage === null ? null : (
                  <Meter
                    value={cat.readiness.coverage}
                    label={`${cat.title}: ${cat.readiness.coverage}% ready`}
                  />
                )}
              </div>
            </div>
            <p className="small">
              <strong>A complete exchange needs</strong> {cat.readiness.requirement}.
              {cat.readiness.partial ? (
                <>
                  {" "}
                  {shown(cat.readiness.partial.count)} {cat.readiness.unit}:{" "}
                  {cat.readiness.partial.description}.
                </>
              ) : null}
            </p>
            <DataTable
              className="data compact"
              columns={["Profile", num("Resources"), num("Conformant"), "Coverage"]}
            >
              {cat.profiles.map((p) => (
                <tr key={p.id}>
                  <td>
                    <details>
                      <summary>
                        {p.title} {p.inGraph ? null : <Badge tone="warn">not in the data</Badge>}
                      </summary>
                      <p className="small wrap">
                        <code>{p.canonical}</code>
                      </p>
                      {p.inGraph ? (
                        <table className="data compact">
                          <tbody>
                            {p.elements.map((e) => (
                              <tr key={e.path}>
                                <td className="small">
                                  <code>{e.path}</code>{" "}
                                  {e.required ? (
                                    <Badge tone="info">required</Badge>
                                  ) : (
                                    <Badge>must support</Badge>
                                  )}
                                  {e.note ? <div className="muted small">{e.note}</div> : null}
                                </td>
                                <td className="num small">{shown(e.present)}</td>
                                <td>
                                  {e.coverage === null ? null : (
                                    <Meter value={e.coverage} label={`${e.path}: ${e.coverage}%`} />
                                  )}
                                </td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      ) : null}
                    </details>
                  </td>
                  <td className="num">{shown(p.resources)}</td>
                  <td className="num">{shown(p.conformant)}</td>
                  <td>
                    {p.inGraph && p.coverage !== null ? (
                      <Meter
                        value={p.coverage}
                        label={`${p.title}: ${p.coverage}% conformant`}
                        testId={`coverage-${p.id}`}
                      />
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
            {cat.readiness.gaps.length ? (
              <details className="small">
                <summary>Gaps ({cat.readiness.gaps.length})</summary>
                <ul>
                  {cat.readiness.gaps.map((g) => (
                    <li key={g}>{g}</li>
                  ))}
                </ul>
              </details>
            ) : null}
            <p className="small muted">
              Guides:{" "}
              {cat.guides.map((g, i) => (
                <span key={g.url}>
                  {i ? "; " : ""}
                  {g.name} (<code>{g.url}</code>)
                </span>
              ))}
            </p>
          </article>
        ))}
      </div>
    </section>
  );
}
