import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useLocation } from "@remix-run/react";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES } from "../../lib/access.server";
import { AppNavLink } from "../../components/ui/app-link";

export const meta: MetaFunction = () => [{ title: "Knowledge graph · Health Dataspace Hub" }];

/** Everyone but patients (the route table's `staff` access list for /api/graph*). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, GRAPH_ROLES);
  return null;
}

export default function GraphLayout() {
  const { search } = useLocation();
  const keep = new URLSearchParams(search);
  keep.delete("focus");
  const explorerSearch = keep.toString();
  return (
    <section className="graph-page" data-testid="graph-page">
      <header className="page-head">
        <div>
          <h1>Knowledge graph</h1>
          <p className="lead">
            Five layers: marketplace, HealthDCAT-AP catalogue, FHIR records, OMOP CDM and terminologies.
          </p>
        </div>
      </header>
      <nav className="tabs" aria-label="Knowledge graph views">
        <AppNavLink
          to={`/graph${explorerSearch ? `?${explorerSearch}` : ""}`}
          end
          data-testid="graph-tab-explorer"
        >
          Explorer
        </AppNavLink>
        <AppNavLink to="/graph/validate" data-testid="graph-tab-validate">
          Validation
        </AppNavLink>
      </nav>
      <Outlet />
    </section>
  );
}
