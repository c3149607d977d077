import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { reasonText, Suppressed } from "../../components/insight/charts";
import { clientError } from "../../lib/api-errors.server";
import { ScopePanel } from "../../components/insight/ScopePanel";
import { Badge } from "../../components/ui/Badge";
import { formatNumber } from "../../components/ui/format";
import { layerLabel } from "../../components/ui/labels";
import { DataTable, num } from "../../components/route-kit/DataTable";
import { requireRole } from "../../session.server";
import { QUESTION_ROLES } from "../../lib/access.server";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "Ask a question · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, QUESTION_ROLES);
  const url = new URL(request.url);
  const question = url.searchParams.get("q")?.trim() ?? "";
  const templateId = url.searchParams.get("template") || "auto";
  const { nlq } = context.services;
  const catalogue = nlq.list();
  const templates = catalogue.templates.map((t) => ({ id: t.id, title: t.title, example: t.examples[0] }));
  const page = { question, templateId, templates, backend: catalogue.backend };
  if (!question) return { ...page, answer: null, error: null };
  try {
    return { ...page, answer: await nlq.ask({ question, templateId }, user), error: null };
  } catch (e) {
    return { ...page, answer: null, error: clientError(e) };
  }
}

const numeric = (c: { type: string }) => c.type === "count" || c.type === "number" || c.type === "percent";

export default function Ask() {
  const { question, templateId, templates, backend, answer, error } = useLoaderData<typeof loader>();
  const busy = useNavigation().state !== "idle";
  const suppressedAt = new Map(
    (answer?.suppressedCells ?? []).map((c) => [`${c.row}:${c.column}`, c.reason]),
  );
  const pv = templates.find((t) => t.id === "pharmacovigilance");
  const chips = [pv, ...templates.filter((t) => t.id !== "pharmacovigilance")]
    .filter((t): t is NonNullable<typeof t> => !!t)
    .slice(0, 8);
  return (
    <section className="ins-page" data-testid="ask">
      <h1>Ask a question</h1>
      <p className="lead">
        Questions in plain words are matched to {templates.length} templates, their terms resolved to SNOMED
        CT, ICD-10, RxNorm and LOINC codes, and run read-only across the knowledge graph. Your words are never
        executed as a query.
      </p>
      <Form method="get" className="card ins-ask-form" data-testid="ask-form">
        <label className="grow">
          <span className="visually-hidden">Your question</span>
          <input
            type="search"
            name="q"
            defaultValue={question}
            placeholder="e.g. Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?"
            maxLength={500}
            data-testid="question"
            aria-label="Your question"
          />
        </label>
        <label>
          <span className="visually-hidden">Template</span>
          <select name="template" defaultValue={templateId} aria-label="Template">
            <option value="auto">any template (auto)</option>
            {optionList(templates, (t) => [t.id, t.title])}
          </select>
        </label>
        <button type="submit" className="button" disabled={busy} data-testid="ask-submit">
          {busy ? "Asking…" : "Ask"}
        </button>
      </Form>
      <div className="ins-examples">
        <span className="muted small">Try:</span>
        <ul className="chips" data-testid="examples">
          {chips.map((t) => (
            <li key={t.id}>
              <Link
                className="chip"
                to={`?q=${encodeURIComponent(t.example)}`}
                data-testid={`example-${t.id}`}
              >
                {t.example}
              </Link>
            </li>
          ))}
        </ul>
      </div>

      {error ? (
        <div className="notice error" role="alert" data-testid="ask-error">
          <p>{error.message}</p>
          {error.detail ? <pre className="ins-query small">{error.detail}</pre> : null}
        </div>
      ) : null}

      {answer && !answer.executed ? (
        <div className="card" data-testid="no-answer">
          <h2>
            {answer.backend === "proxy"
              ? "A query was proposed, not run"
              : "No template answers this question"}
          </h2>
          <p>{answer.reason}</p>
          {answer.query ? (
            <>
              <h3 className="ins-h3">Proposed by the language back end</h3>
              <pre className="ins-query" data-testid="query">
                {answer.query.text}
              </pre>
            </>
          ) : null}
          {answer.suggestions?.length ? (
            <>
              <p className="small muted">Questions the templates answer:</p>
              <ul className="chips">
                {answer.suggestions.map((s) => (
                  <li key={s.templateId}>
                    <Link className="chip" to={`?q=${encodeURIComponent(s.example)}`}>
                      {s.example}
                    </Link>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}

      {answer?.executed ? (
        <>
          <div className="card ins-answer" data-testid="answer">
            <div className="page-head">
              <h2>{answer.template?.title}</h2>
              <div className="tags">
                <Badge tone="info" testId="template-id">
                  {answer.template?.id}
                </Badge>
                {answer.backend === "proxy" ? <Badge tone="warn">via the language back end</Badge> : null}
                {answer.layers.map((l) => (
                  <span key={l} className={`ins-layer layer-${l}`} data-testid="layer">
                    {layerLabel(l)}
                  </span>
                ))}
              </div>
            </div>
            <p className="ins-interpretation" data-testid="interpretation">
              {answer.interpretation}
            </p>
            <div className="table-wrap">
              <DataTable
                data-testid="answer-table"
                columns={answer.columns.map((c) => (numeric(c) ? num(c.label) : c.label))}
              >
                {answer.rows.map((row, i) => (
                  <tr key={i}>
                    {answer.columns.map((c) => {
                      const v = row[c.key];
                      const reason = suppressedAt.get(`${i}:${c.key}`);
                      return (
                        <td key={c.key} className={numeric(c) ? "num" : undefined}>
                          {reason ? (
                            <Suppressed
                              display={c.type === "count" ? undefined : "withheld"}
                              reason={reason}
                            />
                          ) : v === null || v === undefined ? (
                            "—"
                          ) : c.type === "code" ? (
                            <code>{v}</code>
                          ) : typeof v === "number" ? (
                            formatNumber(v)
                          ) : (
                            v
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </DataTable>
            </div>
            {answer.rows.length === 0 ? <p className="muted">No rows.</p> : null}
            {answer.suppressedCells.length ? (
              <p className="small muted" data-testid="suppressed-note">
                {answer.suppressedCells.length} value{answer.suppressedCells.length === 1 ? "" : "s"}{" "}
                withheld: {[...new Set(answer.suppressedCells.map((c) => reasonText(c.reason)))].join("; ")}.
              </p>
            ) : null}
          </div>

          <div className="ins-grid">
            <div className="card">
              <h2>The query</h2>
              <pre className="ins-query" data-testid="query">
                {answer.query?.text}
              </pre>
              <p className="small">
                Parameters:{" "}
                {Object.entries(answer.query?.parameters ?? {}).map(([k2, v]) => (
                  <code key={k2} className="ins-param">
                    ${k2} = {v}
                  </code>
                ))}
              </p>
              <h3 className="ins-h3">How it ran</h3>
              <p className="small muted">{answer.query?.executedVia}</p>
              <ol className="small" data-testid="plan">
                {answer.query?.plan.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ol>
            </div>
            <div className="card">
              <h2>Terms resolved</h2>
              <dl className="fields" data-testid="terms">
                {Object.entries(answer.parameters).map(([name, p]) => (
                  <div key={name} className="field-row">
                    <dt>
                      {name} “{p.term}”
                    </dt>
                    <dd>
                      {p.display} — {p.system} <code>{p.code}</code>
                      {"icd10" in p && p.icd10 ? (
                        <>
                          {" "}
                          · ICD-10 <code>{p.icd10}</code>
                        </>
                      ) : null}
                      {"atc" in p && p.atc ? (
                        <>
                          {" "}
                          · ATC <code>{p.atc}</code>
                        </>
                      ) : null}
                    </dd>
                  </div>
                ))}
                {Object.keys(answer.parameters).length === 0 ? (
                  <p className="muted small">This template takes no terms.</p>
                ) : null}
              </dl>
            </div>
          </div>
          <ScopePanel scope={answer.scope} title="Your ODRL scope, applied" />
        </>
      ) : null}

      <p className="small muted" data-testid="backend">
        Answered by the built-in templates
        {backend.proxyUrl
          ? `; questions no template matches go to the language back end at ${backend.proxyUrl}`
          : ""}
        .
      </p>
    </section>
  );
}
