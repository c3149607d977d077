import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { PATIENT_LIST_MAX, PATIENT_OFFSET_MAX, requirePatientStaff } from "../../lib/patient/access.server";
import { organisationSlugOf } from "../../lib/access.server";
import { Pager } from "../../components/ui/Pager";
import { formatDate, humanize } from "../../components/ui/format";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "Patients · Health Dataspace Hub" }];

const PAGE_SIZES = [25, 50, 100] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requirePatientStaff(request, context);
  const url = new URL(request.url);
  const rawLimit = Number.parseInt(url.searchParams.get("limit") ?? "", 10);
  const limit =
    Number.isFinite(rawLimit) && rawLimit > 0 ? Math.min(rawLimit, PATIENT_LIST_MAX) : PAGE_SIZES[0];
  const rawOffset = Number.parseInt(url.searchParams.get("offset") ?? "", 10);
  const offset = Number.isFinite(rawOffset) && rawOffset > 0 ? Math.min(rawOffset, PATIENT_OFFSET_MAX) : 0;
  const isAdmin = user.roles.includes("CONNECTOR_ADMIN");
  const holder = isAdmin ? undefined : organisationSlugOf(user);

  // one more than a page tells whether a next page exists
  const [rows, total] = await Promise.all([
    context.services.patients.list(user, { limit: limit + 1, offset }, "patient.list.page.read"),
    isAdmin || holder
      ? context.services.graph.countWhere("Patient", holder ? { holder } : undefined)
      : Promise.resolve(0),
  ]);
  return {
    patients: rows.slice(0, limit),
    hasMore: rows.length > limit,
    total,
    limit,
    offset,
    scope: isAdmin ? "all data holders" : user.organisation,
  };
}

export default function Patients() {
  const { patients, hasMore, total, limit, offset, scope } = useLoaderData<typeof loader>();
  const hrefFor = (o: number) =>
    `/patients?${new URLSearchParams({ limit: String(limit), offset: String(o) }).toString()}`;
  return (
    <section className="patients" data-testid="patients-page">
      <header className="page-head">
        <div>
          <h1>Patients</h1>
          <p className="lead">FHIR R4 patient records held by {scope}.</p>
        </div>
        <Form method="get" className="inline-form">
          <Filter label="Per page">
            <select
              name="limit"
              defaultValue={String(limit)}
              data-testid="patients-page-size"
              onChange={(e) => e.currentTarget.form?.requestSubmit()}
            >
              {optionList([...new Set([...PAGE_SIZES, limit])], (n) => [n, n])}
            </select>
          </Filter>
          <noscript>
            <button type="submit" className="button small">
              Show
            </button>
          </noscript>
        </Form>
      </header>
      {patients.length ? (
        <div className="table-wrap card flush">
          <DataTable
            data-testid="patients-table"
            caption={<caption className="visually-hidden">Patients, {scope}</caption>}
            columns={["Name", "Gender", "Birth date", "City", "Country"]}
          >
            {patients.map((p) => (
              <tr key={p.id} data-testid="patient-row" data-patient-id={p.id}>
                <td>
                  <AppLink to={`/patients/${encodeURIComponent(p.id)}`} data-testid="patient-link">
                    {p.name ?? p.id}
                  </AppLink>
                </td>
                <td>{p.gender ? humanize(p.gender) : "—"}</td>
                <td>{p.birthDate ? formatDate(p.birthDate) : "—"}</td>
                <td>{p.city ?? "—"}</td>
                <td>{p.country ?? "—"}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      ) : (
        <p className="card muted" data-testid="patients-empty">
          {offset > 0 ? "No patients on this page." : "No patient records are held by your organisation."}
        </p>
      )}
      <Pager
        offset={offset}
        limit={limit}
        shown={patients.length}
        total={total || null}
        hasMore={hasMore}
        hrefFor={hrefFor}
        label="patients"
      />
    </section>
  );
}
