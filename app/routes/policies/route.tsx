import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { validateOdrlPolicy, type PolicyProblem } from "../../../server/policies/odrl";
import { PolicyEditor } from "../../components/governance/PolicyEditor";
import { GovNav, Outcome, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDateTime } from "../../components/ui/format";
import { isAdmin, ownContext, requireActingIn } from "../../lib/dataspace/access.server";
import { requireRole } from "../../session.server";
import { POLICY_ROLES } from "../../lib/access.server";
import { failure, formFieldErrorsOf, notFoundPage, readForm } from "../../lib/api-errors.server";
import type { FormFieldError } from "../../types";
import { fieldMessage } from "../../components/ui/field-errors";
import { AppLink } from "../../components/ui/app-link";
import { DataTable, ACTIONS } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "ODRL policies · Health Dataspace Hub" }];

const SYNC_TONE = {
  "in-sync": "ok",
  "hub-newer": "warn",
  "missing-at-connector": "danger",
  "connector-only": "neutral",
} as const;

const RULE_KINDS = ["permission", "prohibition", "obligation"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, POLICY_ROLES);
  const url = new URL(request.url);
  const s = context.services.policies;
  const participants = await s.participants();
  const own = isAdmin(user) ? undefined : await ownContext(context.services.dataspace, user);
  const participantId = url.searchParams.get("participant") ?? own ?? participants[0]?.id ?? "";
  const canWrite = isAdmin(user) || participantId === own;
  const me = participants.find((p) => p.id === participantId);
  // a participant the hub does not know (?participant=abc) is a missing page, not a failure
  const policies = participantId ? await s.list(participantId).catch(notFoundPage) : [];
  const templates = s.templates(me?.did || undefined);

  // what the editor starts from: a template, a copy, an existing policy, or nothing
  const open = (mode: "create" | "update", document: unknown, policyId: string | null = null) => ({
    mode,
    policyId,
    text: JSON.stringify(document, null, 2),
  });
  let editor: ReturnType<typeof open> | null = null;
  const edit = url.searchParams.get("edit");
  const copy = url.searchParams.get("duplicate");
  const template = url.searchParams.get("template");
  const policyOf = (id: string) => policies.find((x) => x["@id"] === id);
  const strip = (p: (typeof policies)[number]) => pick(p, "@id @type policy");
  if (!canWrite) {
    // read only: no editor
  } else if (edit) {
    const p = policyOf(edit);
    if (p) editor = open("update", strip(p), p["@id"]);
  } else if (copy) {
    const p = policyOf(copy);
    if (p) editor = open("create", { ...strip(p), "@id": `${p["@id"]}-copy` });
  } else if (template) {
    const t = templates.find((x) => x.id === template);
    if (t) editor = open("create", t.policy);
  } else if (url.searchParams.get("new") === "1") {
    editor = open("create", {
      "@id": "",
      "@type": "PolicyDefinition",
      policy: { "@type": "Set", permission: [{ action: "use" }], prohibition: [], obligation: [] },
    });
  }
  return {
    user: user.username,
    participants,
    participantId,
    canWrite,
    policies: policies.map((p) => ({
      id: p["@id"],
      type: p.policy["@type"],
      rules: Object.fromEntries(RULE_KINDS.map((k) => [k, p.policy[k]?.length ?? 0])),
      actions: RULE_KINDS.flatMap((k) => p.policy[k] ?? []).map((r) =>
        typeof r.action === "string" ? r.action : JSON.stringify(r.action),
      ),
      ...pick(p, "source version updatedBy updatedAt connector"),
    })),
    templates: templates.map((t) => ({
      ...pick(t, "id label article description"),
      type: t.policy.policy["@type"],
    })),
    editor,
    deleting: url.searchParams.get("delete"),
    created: url.searchParams.get("saved"),
  };
}

type ActionResult = { ok: boolean; message: string; problems?: PolicyProblem[]; fields?: FormFieldError[] };

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionResult | Response> {
  const user = await requireRole(request, context, POLICY_ROLES);
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  const participantId = String(form.get("participantId") ?? "");
  // the access body reads every context's policies here but writes only in its own (issue 34)
  await requireActingIn(context.services.dataspace, user, participantId);
  const s = context.services.policies;
  const back = (saved: string) =>
    redirect(`/policies?participant=${encodeURIComponent(participantId)}&saved=${encodeURIComponent(saved)}`);
  try {
    if (intent === "delete") {
      const policyId = String(form.get("policyId") ?? "");
      await s.remove(policyId, participantId, user.username);
      return { ok: true, message: `Deleted ${policyId}.` };
    }
    let document: unknown;
    try {
      document = JSON.parse(String(form.get("document") ?? ""));
    } catch (e) {
      return {
        ok: false,
        message: `The policy is not valid JSON: ${e instanceof Error ? e.message : "parse error"}`,
      };
    }
    if (intent === "update") {
      const policyId = String(form.get("policyId") ?? "");
      const p = await s.replace(policyId, participantId, document, user.username);
      return back(`${p["@id"]} v${p.version}`);
    }
    const p = await s.create(participantId, document, user.username);
    return back(p["@id"]);
  } catch (e) {
    const f = failure(e);
    const problems = (e as { extra?: { problems?: PolicyProblem[] } }).extra?.problems;
    // the service's "policy" is the editor's "document"
    const fields = formFieldErrorsOf(e).map((x) => (x.field === "policy" ? { ...x, field: "document" } : x));
    return { ...f, problems, fields };
  }
}

export default function Policies() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const busy = useNavigation().state === "submitting";
  const q = (extra: string) => `/policies?participant=${encodeURIComponent(d.participantId)}${extra}`;
  return (
    <section className="gov">
      <PageHead
        title="ODRL policies"
        lead="The policy definitions each participant's connector offers data under, checked against ODRL 2.2 and pushed to the connector."
      >
        {d.canWrite ? (
          <AppLink to={q("&new=1")} className="button">
            New policy
          </AppLink>
        ) : null}
      </PageHead>
      <GovNav />
      <Outcome
        result={
          result
            ? { ok: result.ok, message: result.message }
            : d.created
              ? { ok: true, message: `Saved ${d.created}.` }
              : null
        }
      />
      <Form method="get" className="toolbar">
        <label htmlFor="policy-participant">Participant</label>
        <select id="policy-participant" name="participant" defaultValue={d.participantId}>
          {optionList(d.participants, (p) => [p.id, p.displayName])}
        </select>
        <button type="submit" className="button ghost small">
          Show
        </button>
      </Form>

      {d.canWrite ? null : (
        <p className="notice" data-testid="policies-read-only">
          You read this participant&apos;s policies; only its own organisation or the dataspace operator
          changes them.
        </p>
      )}
      {d.editor ? (
        <PolicyEditor
          key={`${d.editor.mode}:${d.editor.policyId ?? ""}:${d.editor.text.length}`}
          initial={d.editor.text}
          mode={d.editor.mode}
          policyId={d.editor.policyId}
          participantId={d.participantId}
          serverProblems={result?.problems ?? null}
          documentError={fieldMessage(result, "document")}
          busy={busy}
          validate={validateOdrlPolicy}
        />
      ) : null}

      <div className="table-wrap card flush">
        <DataTable
          data-testid="policies"
          columns={["Policy", "Type", "Rules", "Version", "At the connector", ACTIONS]}
        >
          {d.policies.map((p) => (
            <tr key={p.id} data-testid={`policy-${p.id}`}>
              <th scope="row" className="wrap">
                <code>{p.id}</code>
              </th>
              <td>{p.type}</td>
              <td className="small">
                {p.rules.permission} permission, {p.rules.prohibition} prohibition, {p.rules.obligation}{" "}
                obligation
                <div className="muted">{p.actions.join(", ")}</div>
              </td>
              <td className="small">
                {p.version ? `v${p.version}` : "—"}
                {p.updatedBy ? (
                  <div className="muted">
                    {p.updatedBy}, {formatDateTime(p.updatedAt)}
                  </div>
                ) : null}
              </td>
              <td>
                <Badge tone={SYNC_TONE[p.connector.state]}>{p.connector.state}</Badge>
                {p.connector.detail ? <div className="small muted">{p.connector.detail}</div> : null}
              </td>
              <td className="nowrap">
                {!d.canWrite ? null : d.deleting === p.id ? (
                  <Form method="post" className="confirm">
                    <input type="hidden" name="intent" value="delete" />
                    <input type="hidden" name="participantId" value={d.participantId} />
                    <input type="hidden" name="policyId" value={p.id} />
                    <p>Delete {p.id}?</p>
                    <button type="submit" className="button small danger" disabled={busy}>
                      Delete
                    </button>{" "}
                    <AppLink to={q("")} className="button small ghost">
                      Keep
                    </AppLink>
                  </Form>
                ) : (
                  <>
                    <AppLink to={q(`&edit=${encodeURIComponent(p.id)}`)} className="button small ghost">
                      Edit
                    </AppLink>{" "}
                    <AppLink to={q(`&duplicate=${encodeURIComponent(p.id)}`)} className="button small ghost">
                      Duplicate
                    </AppLink>{" "}
                    <AppLink
                      to={q(`&delete=${encodeURIComponent(p.id)}`)}
                      className="button small danger-ghost"
                      aria-label={`Delete ${p.id}`}
                    >
                      Delete
                    </AppLink>
                  </>
                )}
              </td>
            </tr>
          ))}
          {d.policies.length === 0 ? (
            <tr>
              <td colSpan={6} className="empty">
                No policies for this participant.
              </td>
            </tr>
          ) : null}
        </DataTable>
      </div>

      <h2>Templates per EHDS purpose</h2>
      <p className="small muted">
        Each template is a valid ODRL 2.2 offer: use only for the purpose and only in the secure processing
        environment, no distribution, no re-identification, anonymised outputs, results reported, data deleted
        after the permit.
      </p>
      <ul className="gov-templates" data-testid="templates">
        {d.templates.map((t) => (
          <li key={t.id} className="card">
            <strong>{t.label}</strong> <span className="small muted">{t.article}</span>
            <p className="small">{t.description}</p>
            <AppLink
              to={q(`&template=${encodeURIComponent(t.id)}`)}
              className="button small ghost"
              aria-label={`Use the template ${t.label}`}
            >
              Use ({t.type})
            </AppLink>
          </li>
        ))}
      </ul>
    </section>
  );
}
