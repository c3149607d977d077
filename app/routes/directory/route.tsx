import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { parseDirectoryInput } from "../../lib/governance/governance.server";
import { GovNav, Outcome, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDate } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ADMIN_ROLES } from "../../lib/access.server";
import { failure, formFieldErrorsOf, readForm } from "../../lib/api-errors.server";
import { Invalid, fieldMessage } from "../../components/ui/field-errors";
import { ACTIONS, DataTable, num } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [
  { title: "Participant directory · Operator console · Health Dataspace Hub" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, ADMIN_ROLES);
  const check = new URL(request.url).searchParams.get("check") === "1";
  return {
    entries: await context.services.operator.directory(),
    discovery: check ? (await context.services.operator.discoveryCheck()).value : null,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, ADMIN_ROLES);
  const form = await readForm(request);
  const intent = form.get("intent");
  try {
    if (intent === "remove") {
      const did = String(form.get("did") ?? "");
      await context.services.operator.removeDirectoryEntry(did, user.username);
      return { ok: true, message: `Removed ${did} from the directory.` };
    }
    const fields: Record<string, unknown> = Object.fromEntries(
      [...form.entries()].map(([k, v]) => [k, String(v)]),
    );
    // the form writes the hosts separated by commas or spaces; the API takes a list
    fields.dataPlaneHosts = String(fields.dataPlaneHosts ?? "")
      .split(/[\s,]+/)
      .filter(Boolean);
    const input = parseDirectoryInput(fields);
    const e = await context.services.operator.addDirectoryEntry(input, user.username);
    return { ok: true, message: `Added ${e.displayName} (${e.did}).` };
  } catch (e) {
    return { ...failure(e), fields: formFieldErrorsOf(e) };
  }
}

export default function Directory() {
  const { entries, discovery } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="gov">
      <PageHead
        title="Participant directory"
        lead="Who the catalogue crawler visits, under which DID, and where their DSP catalogue is. The dataspace's founding participants are seeded and stay."
      >
        <a href="/directory?check=1" className="button ghost">
          Check federated discovery
        </a>
      </PageHead>
      <GovNav />
      <Outcome result={result} />
      <div className="table-wrap card flush">
        <DataTable
          data-testid="directory"
          columns={["Participant", "DID", "Country", "Catalogue", "Data plane hosts", "Added", ACTIONS]}
        >
          {entries.map((e) => (
            <tr key={e.did} data-testid={`entry-${e.id}`}>
              <th scope="row">
                {e.displayName} {e.source === "seeded" ? <Badge tone="info">seeded</Badge> : null}
              </th>
              <td className="wrap">
                <code>{e.did}</code>
              </td>
              <td>{e.country ?? "—"}</td>
              <td className="small wrap">
                {e.catalogueUrl ? <code>{e.catalogueUrl}</code> : <span className="muted">not crawled</span>}
              </td>
              <td className="small wrap">
                {e.dataPlaneHosts.length ? (
                  <code>{e.dataPlaneHosts.join(", ")}</code>
                ) : (
                  <span className="muted">DSP host only</span>
                )}
              </td>
              <td className="small">
                {formatDate(e.addedAt)} by {e.addedBy}
              </td>
              <td>
                {e.source === "added" ? (
                  <Form method="post">
                    <input type="hidden" name="intent" value="remove" />
                    <input type="hidden" name="did" value={e.did} />
                    <button
                      type="submit"
                      className="button small danger-ghost"
                      disabled={busy}
                      aria-label={`Remove ${e.displayName}`}
                    >
                      Remove
                    </button>
                  </Form>
                ) : (
                  <span className="small muted">kept</span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>

      <Form method="post" className="card gov-form" data-testid="directory-form">
        <h2>Add a participant</h2>
        <input type="hidden" name="intent" value="add" />
        <div className="form-grid">
          <label>
            <span>
              Display name{" "}
              <span className="required" aria-hidden>
                *
              </span>
            </span>
            <Invalid message={fieldMessage(result, "displayName")}>
              <input name="displayName" required maxLength={200} />
            </Invalid>
          </label>
          <label>
            <span>
              DID{" "}
              <span className="required" aria-hidden>
                *
              </span>
            </span>
            <Invalid message={fieldMessage(result, "did")}>
              <input name="did" required placeholder="did:web:hospital.example.org:participant" />
            </Invalid>
            <span className="hint">W3C DID syntax; a did:web needs a domain name.</span>
          </label>
          <label>
            Country
            <Invalid message={fieldMessage(result, "country")}>
              <input name="country" maxLength={2} placeholder="DE" />
            </Invalid>
          </label>
          <label>
            DSP catalogue address
            <Invalid message={fieldMessage(result, "catalogueUrl")}>
              <input
                name="catalogueUrl"
                type="url"
                placeholder="https://hospital.example.org/api/dsp/catalog/request"
              />
            </Invalid>
          </label>
          <label>
            Data plane hosts
            <Invalid message={fieldMessage(result, "dataPlaneHosts")}>
              <input name="dataPlaneHosts" placeholder="dataplane.hospital.example.org" />
            </Invalid>
            <span className="hint">
              Where its data plane serves pulls, if not on the host of its DSP address: host names or IP
              addresses, separated by commas; any port.
            </span>
          </label>
        </div>
        <div className="actions">
          <button type="submit" className="button" disabled={busy}>
            Add to the directory
          </button>
        </div>
      </Form>

      {discovery ? (
        <div className="card gov-form" data-testid="discovery">
          <h2>Federated discovery check</h2>
          <p className={`notice ${discovery.ok ? "ok" : "error"}`}>
            {discovery.ok ? "Every crawler target answers." : "Some crawler targets do not answer."}{" "}
            {discovery.totals.datasets} datasets with {discovery.totals.offers} offers from{" "}
            {discovery.totals.reachableTargets} catalogues. Read-only: nothing was changed.
          </p>
          {discovery.problems.length ? (
            <ul>
              {discovery.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          ) : null}
          <DataTable
            className="data compact"
            columns={["Target", "Kind", "Answer", num("Datasets"), num("Offers")]}
          >
            {discovery.targets.map((t) => (
              <tr key={t.did}>
                <td>{t.displayName}</td>
                <td>{t.kind === "hub" ? "hub catalogue" : t.kind === "remote" ? "remote" : "no address"}</td>
                <td>
                  {t.reachable === null ? (
                    "—"
                  ) : t.reachable ? (
                    <Badge tone="ok">answers</Badge>
                  ) : (
                    <Badge tone="danger">{t.error ?? "no answer"}</Badge>
                  )}
                </td>
                <td className="num">{t.datasets}</td>
                <td className="num">{t.offers}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      ) : null}
    </section>
  );
}
