import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GovNav, HealthBadge, PageHead } from "../../components/governance/ui";
import { withLayerNames } from "../../components/ui/labels";
import { formatDateTime, formatNumber } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ADMIN_ROLES, settle } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Operator console · Health Dataspace Hub" }];

const settled = <T,>(p: Promise<T>) => settle(p, (e) => (e instanceof Error ? e.message : String(e)));

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, ADMIN_ROLES);
  const s = context.services;
  const [components, tenants, credentials, policies, discovery, catalogue] = await Promise.all([
    settled(s.operator.components().then((r) => r.value)),
    settled(s.operator.tenants()),
    settled(s.credentials.list(user)),
    settled(s.policies.list()),
    settled(s.operator.discoveryCheck().then((r) => r.value)),
    // the catalogue's datasets: the same list /discover shows (issue 40: one number per fact)
    s.catalogue.list(),
  ]);
  const chain = await s.audit.verify();
  const directory = await s.operator.directory();
  return {
    components: components.ok
      ? components.value.map((c) => ({
          ...pick(c, "name label health"),
          observed: withLayerNames(c.observed),
        }))
      : null,
    componentsError: components.ok ? null : components.error,
    tenants: tenants.ok ? tenants.value.length : null,
    tenantsError: tenants.ok ? null : tenants.error,
    directoryEntries: directory.length,
    credentials: credentials.ok
      ? {
          total: credentials.value.length,
          revoked: credentials.value.filter((c) => c.status === "revoked").length,
        }
      : null,
    policies: policies.ok
      ? {
          total: policies.value.length,
          pending: policies.value.filter(
            (p) => p.connector.state !== "in-sync" && p.connector.state !== "connector-only",
          ).length,
        }
      : null,
    catalogueDatasets: catalogue.length,
    chain: { ok: chain.ok, checked: chain.checked, firstBroken: chain.ok ? null : chain.firstBroken },
    lastPurge: await s.auditRetention.lastPurge(),
    discovery: discovery.ok
      ? {
          ok: discovery.value.ok,
          offeredDatasets: discovery.value.totals.datasets,
          catalogues: discovery.value.participants.withCatalogue,
          problems: discovery.value.problems,
        }
      : null,
  };
}

export default function OperatorDashboard() {
  const d = useLoaderData<typeof loader>();
  const down = d.components?.filter((c) => c.health !== "up") ?? [];
  return (
    <section className="gov">
      <PageHead
        title="Operator console"
        lead="The state of the dataspace this hub runs: components, participants, credentials, policies and the audit trail."
      />
      <GovNav />
      <div className="stat-grid gov-stats">
        <AppLink
          to="/components"
          className={`card stat ${down.length ? "gov-stat-bad" : "gov-stat-good"}`}
          data-testid="stat-components"
        >
          <span className="stat-label">Components up</span>
          <span className="stat-value">
            {d.components ? `${d.components.length - down.length} / ${d.components.length}` : "?"}
          </span>
        </AppLink>
        <AppLink to="/tenants" className="card stat" data-testid="stat-tenants">
          <span className="stat-label">Tenants</span>
          <span className="stat-value">{d.tenants ?? "?"}</span>
        </AppLink>
        <AppLink to="/directory" className="card stat" data-testid="stat-directory">
          <span className="stat-label">Directory entries</span>
          <span className="stat-value">{d.directoryEntries}</span>
        </AppLink>
        <AppLink to="/credentials" className="card stat" data-testid="stat-credentials">
          <span className="stat-label">Credentials (revoked)</span>
          <span className="stat-value">
            {d.credentials ? `${d.credentials.total} (${d.credentials.revoked})` : "?"}
          </span>
        </AppLink>
        <AppLink to="/policies" className="card stat" data-testid="stat-policies">
          <span className="stat-label">ODRL policies</span>
          <span className="stat-value">{d.policies ? formatNumber(d.policies.total) : "?"}</span>
        </AppLink>
        <AppLink
          to="/audit"
          className={`card stat ${d.chain.ok ? "gov-stat-good" : "gov-stat-bad"}`}
          data-testid="stat-chain"
        >
          <span className="stat-label">Audit chain</span>
          <span className="stat-value">{d.chain.ok ? "intact" : "broken"}</span>
        </AppLink>
      </div>

      <div className="two-col gov-cols">
        <div className="card">
          <h2>Components</h2>
          {d.componentsError ? <p className="notice error">{d.componentsError}</p> : null}
          <table className="data compact">
            <tbody>
              {d.components?.map((c) => (
                <tr key={c.name}>
                  <th scope="row">
                    <AppLink to={`/components/${c.name}`}>{c.label}</AppLink>
                  </th>
                  <td>
                    <HealthBadge health={c.health} />
                  </td>
                  <td className="small muted">{c.observed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="card">
          <h2>Attention</h2>
          <ul className="gov-attention">
            {down.map((c) => (
              <li key={c.name}>
                <AppLink to={`/components/${c.name}`}>{c.label}</AppLink> is {c.health}: {c.observed}
              </li>
            ))}
            {!d.chain.ok && d.chain.firstBroken ? (
              <li>
                The audit chain is broken at entry {d.chain.firstBroken.seq}: {d.chain.firstBroken.reason}.
              </li>
            ) : null}
            {d.policies && d.policies.pending > 0 ? (
              <li>
                <AppLink to="/policies">
                  {d.policies.pending} polic{d.policies.pending === 1 ? "y" : "ies"}
                </AppLink>{" "}
                newer in the hub than at the connector.
              </li>
            ) : null}
            {d.discovery?.problems.map((p) => (
              <li key={p}>
                <AppLink to="/directory">Discovery</AppLink>: {p}
              </li>
            ))}
            {d.tenantsError ? <li>Tenant manager: {d.tenantsError}</li> : null}
            {down.length === 0 &&
            d.chain.ok &&
            !d.discovery?.problems.length &&
            !(d.policies && d.policies.pending) ? (
              <li>Nothing needs attention.</li>
            ) : null}
          </ul>
          <p className="small muted">
            Audit chain: {d.chain.checked} entries checked. Last retention purge:{" "}
            {d.lastPurge ? formatDateTime(d.lastPurge) : "none yet"}.
            {d.discovery
              ? ` Federated discovery reads ${d.discovery.offeredDatasets} offered datasets in ${d.discovery.catalogues} participants' DSP catalogues.`
              : ""}{" "}
            <AppLink to="/discover?show=datasets" data-testid="operator-catalogue-datasets">
              The catalogue lists {d.catalogueDatasets} datasets
            </AppLink>
            .
          </p>
        </div>
      </div>
    </section>
  );
}
