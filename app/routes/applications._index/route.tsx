import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { fields, int, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { runIntent } from "../../components/route-kit/intents.server";
import { DaysLeft, Field, Notice, StateBadge, civil } from "../../components/access-body/ui";
import { intentFieldMessage } from "../../components/ui/field-errors";
import { requireRole } from "../../session.server";
import { APPLICANT_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";
import { optionList } from "../../components/route-kit/options";
import { readForm } from "../../lib/api-errors.server";

export const meta: MetaFunction = () => [{ title: "My applications · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, APPLICANT_ROLES);
  const ab = context.services.accessBody;
  const [apps, irs, requests, results, permits, datasets] = await Promise.all([
    ab.listApplications(user),
    ab.listInformationRequests(user, { state: "OPEN" }),
    ab.listDataRequests(user),
    ab.listResults(user),
    ab.listPermits(user),
    context.services.catalogue.list(),
  ]);
  return {
    organisation: user.organisation,
    applications: apps
      .map((a) => ({ ...pick(a, "id title state receivedDate decision permitId"), clock: a.clockView }))
      .sort((a, b) => b.receivedDate.localeCompare(a.receivedDate) || b.id.localeCompare(a.id)),
    informationRequests: irs.map((i) =>
      pick(i, "id applicationId applicationTitle questions dueDate daysLeft overdue"),
    ),
    requests: requests.map((r) => pick(r, "id title state receivedDate dueDate answer decision")),
    results: results.map((r) =>
      pick(r, "id title state permitId dataRequestId publicationDueDate daysLeft overdue check publication"),
    ),
    permits: permits.map((p) => ({ ...pick(p, "id state validUntil"), datasets: p.datasetTitles })),
    answeredRequests: requests.filter((r) => r.state === "ANSWERED").map((r) => pick(r, "id title")),
    datasets: datasets
      .map((d) => ({ id: d.id, title: d.title, publisher: d.publisher ?? "" }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    purposes: ab.purposes.map((p) => ({ code: p.code, label: `${p.label} (${p.point})` })),
  };
}

export async function action({ request, context }: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const user = await requireRole(request, context, APPLICANT_ROLES);
  const ab = context.services.accessBody;
  const form = await readForm(request, ["datasets"]);
  const f = fields(form);
  return runIntent(f.intent ?? "", {
    apply: [
      () =>
        ab.submitApplication(
          {
            ...pick(f, "title summary purpose"),
            datasets: form.getAll("datasets").map(String),
            pseudonymised: f.pseudonymised === "on",
            durationMonths: int(f.durationMonths),
          },
          user,
        ),
      "Application submitted. The access body checks its completeness first; the three-month clock runs from the receipt of a complete application.",
    ],
    answer: [
      () =>
        ab.answerInformationRequest({ informationRequestId: f.informationRequestId, answer: f.answer }, user),
      "Answer sent; the access body's clock runs again.",
    ],
    withdraw: [
      () =>
        ab.withdrawApplication(
          { applicationId: f.applicationId, action: "withdraw", reason: f.reason },
          user,
        ),
      "Application withdrawn.",
    ],
    request: [
      () =>
        ab.submitDataRequest(
          { ...pick(f, "title question purpose"), datasets: form.getAll("datasets").map(String) },
          user,
        ),
      "Data request submitted.",
    ],
    declare: [
      () =>
        ab.postResult(
          {
            ...pick(f, "title summary processingCompletedDate"),
            ...(f.source?.startsWith("DRQ-") ? { dataRequestId: f.source } : { permitId: f.source }),
          },
          user,
        ),
      "Result declared; the access body checks it before release.",
    ],
    publish: [
      () => ab.postResult({ resultId: f.resultId, action: "publish", url: f.url }, user),
      "Publication recorded.",
    ],
  });
}

export default function MyApplications() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const err = (intents: string | string[], name: string) => intentFieldMessage(result, intents, name);
  const busy = useNavigation().state !== "idle";
  const datasetsError = err("apply", "datasets");
  // "Apply for a data permit" on a dataset's page comes here with that dataset ticked
  const chosen = useSearchParams()[0].getAll("dataset");
  return (
    <section>
      <h1>My applications</h1>
      <p className="lead">
        {d.organisation}: data access applications (Art. 67), data requests (Art. 69) and results (Art. 61(4))
        with the access body MedReg DE. <AppLink to="/information">How it works</AppLink> ·{" "}
        <AppLink to="/register">Public register</AppLink>
      </p>
      <Notice result={result} />

      {d.informationRequests.length ? (
        <div
          className="card ab-card ab-attention"
          data-testid="open-information-requests"
          id="information-requests"
        >
          <h2>The access body asks you</h2>
          {d.informationRequests.map((ir) => (
            <Form method="post" key={ir.id} className="ab-form" data-testid={`answer-${ir.id}`}>
              <h3>
                {ir.id} · <AppLink to={`/applications/${ir.applicationId}`}>{ir.applicationTitle}</AppLink>
              </h3>
              <p className="muted ab-small">
                Answer by {civil(ir.dueDate)} · <DaysLeft daysLeft={ir.daysLeft} overdue={ir.overdue} />
              </p>
              <p className="ab-pre">{ir.questions}</p>
              <input type="hidden" name="informationRequestId" value={ir.id} />
              <Field label="Your answer" error={err("answer", "answer")}>
                <textarea name="answer" rows={3} required />
              </Field>
              <button className="button" name="intent" value="answer" disabled={busy}>
                Send answer
              </button>
            </Form>
          ))}
        </div>
      ) : null}

      <h2 id="applications">Applications</h2>
      <DataTable
        data-testid="my-applications"
        columns={["Application", "Received", "State", "Decision due", "Decision"]}
      >
        {d.applications.map((a) => (
          <tr key={a.id} data-testid={`app-${a.id}`}>
            <td>
              <AppLink to={`/applications/${a.id}`}>{a.title}</AppLink>
              <div className="muted ab-small">{a.id}</div>
            </td>
            <td className="nowrap">{civil(a.receivedDate)}</td>
            <td>
              <StateBadge state={a.state} />
            </td>
            <td className="nowrap">
              {a.clock.deadlineDate && a.clock.state !== "STOPPED" ? (
                <>
                  {civil(a.clock.deadlineDate)} ·{" "}
                  <DaysLeft
                    daysLeft={a.clock.daysLeft}
                    overdue={a.clock.overdue}
                    paused={a.clock.state === "PAUSED"}
                  />
                </>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td>
              {a.decision ? `${a.decision.outcome.toLowerCase()} ${civil(a.decision.date)}` : "—"}
              {a.permitId ? <div className="ab-small">permit {a.permitId}</div> : null}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2 id="permits">Your data permits</h2>
      {d.permits.length ? (
        <DataTable data-testid="my-permits" columns={["Permit", "Datasets", "Valid until", "State"]}>
          {d.permits.map((p) => (
            <tr key={p.id} data-testid={`permit-${p.id}`}>
              <td className="nowrap">{p.id}</td>
              <td>{p.datasets.join("; ")}</td>
              <td className="nowrap">{civil(p.validUntil)}</td>
              <td>
                <StateBadge state={p.state} />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p className="muted">No data permits yet.</p>
      )}

      <div className="two-col">
        <Form method="post" className="card ab-card ab-form" data-testid="apply-form" id="apply-form">
          <h2>Apply for access (Art. 67)</h2>
          <Field label="Project title (published in the register)" error={err("apply", "title")}>
            <input name="title" required maxLength={300} />
          </Field>
          <Field label="Purpose (Art. 53(1))" error={err("apply", "purpose")}>
            <select name="purpose" required defaultValue="scientificResearch">
              {optionList(d.purposes, (p) => [p.code, p.label])}
            </select>
          </Field>
          <fieldset
            className="ab-datasets"
            aria-invalid={datasetsError ? true : undefined}
            aria-describedby={datasetsError ? "apply-datasets-error" : undefined}
          >
            <legend>Datasets</legend>
            {d.datasets.map((ds) => (
              <label key={ds.id} className="ab-check">
                <input
                  type="checkbox"
                  name="datasets"
                  value={ds.id}
                  defaultChecked={chosen.includes(ds.id)}
                />{" "}
                {ds.title} <span className="muted ab-small">{ds.publisher}</span>
              </label>
            ))}
            {datasetsError ? (
              <span id="apply-datasets-error" className="field-error" data-testid="field-error-datasets">
                {datasetsError}
              </span>
            ) : null}
          </fieldset>
          <Field label="Intended use (for the access body; not published)" error={err("apply", "summary")}>
            <textarea name="summary" rows={4} required />
          </Field>
          <div className="form-grid">
            <Field label="Duration (months)" error={err("apply", "durationMonths")}>
              <input name="durationMonths" type="number" min={1} max={120} defaultValue={24} />
            </Field>
            <label className="ab-check">
              <input type="checkbox" name="pseudonymised" /> I need pseudonymised data (justify in the
              intended use)
            </label>
          </div>
          <button className="button" name="intent" value="apply" disabled={busy}>
            Submit application
          </button>
        </Form>

        <div>
          <Form method="post" className="card ab-card ab-form">
            <h2>Withdraw an application</h2>
            <Field label="Application" error={err("withdraw", "applicationId")}>
              <select name="applicationId" required>
                {optionList(
                  d.applications.filter((a) => !["GRANTED", "REFUSED", "WITHDRAWN"].includes(a.state)),
                  (a) => [a.id, `${a.id} · ${a.title}`],
                )}
              </select>
            </Field>
            <Field label="Reason" error={err("withdraw", "reason")}>
              <input name="reason" required />
            </Field>
            <button className="button ghost" name="intent" value="withdraw" disabled={busy}>
              Withdraw
            </button>
          </Form>

          <Form method="post" className="card ab-card ab-form" data-testid="data-request-form">
            <h2>Ask for anonymised statistics (Art. 69)</h2>
            <Field label="Title" error={err("request", "title")}>
              <input name="title" required />
            </Field>
            <Field label="Question" error={err("request", "question")}>
              <textarea name="question" rows={2} required />
            </Field>
            <Field label="Purpose" error={err("request", "purpose")}>
              <select name="purpose" defaultValue="scientificResearch">
                {optionList(d.purposes, (p) => [p.code, p.label])}
              </select>
            </Field>
            <Field label="Dataset" error={err("request", "datasets")}>
              <select name="datasets" required>
                {optionList(d.datasets, (ds) => [ds.id, ds.title])}
              </select>
            </Field>
            <button className="button ghost" name="intent" value="request" disabled={busy}>
              Submit data request
            </button>
          </Form>
        </div>
      </div>

      <h2>Data requests</h2>
      <DataTable data-testid="my-requests" columns={["Request", "Received", "State", "Answer due", "Answer"]}>
        {d.requests.map((r) => (
          <tr key={r.id}>
            <td>
              {r.title}
              <div className="muted ab-small">{r.id}</div>
            </td>
            <td>{civil(r.receivedDate)}</td>
            <td>
              <StateBadge state={r.state} />
            </td>
            <td>{civil(r.dueDate)}</td>
            <td>
              {r.answer ? (
                <>
                  {r.answer.summary}
                  <ul className="ab-small">
                    {r.answer.table.map((row) => (
                      <li key={row.label}>
                        {row.label}: {row.value}
                      </li>
                    ))}
                  </ul>
                </>
              ) : r.decision?.reasons ? (
                r.decision.reasons
              ) : (
                "—"
              )}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2>Results (publish within 18 months, Art. 61(4))</h2>
      <DataTable
        data-testid="my-results"
        columns={["Result", "From", "State", "Publication due", "Publication"]}
      >
        {d.results.map((r) => (
          <tr key={r.id} className={r.overdue ? "ab-row-overdue" : undefined}>
            <td>
              {r.title}
              <div className="muted ab-small">{r.id}</div>
              {r.check ? (
                <div className="ab-small">
                  {/^output check/i.test(r.check.note) ? r.check.note : `Output check: ${r.check.note}`}
                </div>
              ) : null}
            </td>
            <td>{r.permitId ?? r.dataRequestId}</td>
            <td>
              <StateBadge state={r.state} />
            </td>
            <td className="nowrap">
              {civil(r.publicationDueDate)}{" "}
              {r.state !== "PUBLISHED" ? <DaysLeft daysLeft={r.daysLeft} overdue={r.overdue} /> : null}
            </td>
            <td>
              {r.state === "RELEASED" ? (
                <Form method="post" className="toolbar">
                  <input type="hidden" name="resultId" value={r.id} />
                  <input
                    name="url"
                    type="url"
                    placeholder="https://…"
                    aria-label="Publication address"
                    required
                  />
                  <button className="button ghost" name="intent" value="publish" disabled={busy}>
                    Record publication
                  </button>
                </Form>
              ) : r.publication ? (
                <a href={r.publication.url}>{r.publication.url}</a>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <Form method="post" className="card ab-card ab-form">
        <h3>Declare a result</h3>
        <div className="form-grid">
          <Field label="From permit or answered request" error={err("declare", "source")}>
            <select name="source" required>
              {optionList(
                d.permits.filter((p) => p.state !== "REVOKED"),
                (p) => [p.id, `${p.id} · ${p.datasets.join("; ")}`],
              )}
              {optionList(d.answeredRequests, (r) => [r.id, `${r.id} · ${r.title}`])}
            </select>
          </Field>
          <Field label="Title" error={err("declare", "title")}>
            <input name="title" required />
          </Field>
          <Field label="Processing completed on" error={err("declare", "processingCompletedDate")}>
            <input name="processingCompletedDate" type="date" required />
          </Field>
        </div>
        <Field label="Summary of the output" error={err("declare", "summary")}>
          <textarea name="summary" rows={2} required />
        </Field>
        <button className="button ghost" name="intent" value="declare" disabled={busy}>
          Declare result
        </button>
      </Form>
    </section>
  );
}
