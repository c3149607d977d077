import { Form } from "@remix-run/react";
import { useMemo, useState } from "react";
import type { PolicyProblem, ValidationResult } from "../../types";
import { Invalid } from "../ui/field-errors";

/** The server's ODRL validator, handed in by the route (server/policies/odrl.ts validateOdrlPolicy). */
export type PolicyValidator = (policy: unknown, at?: string) => ValidationResult;

function check(text: string, validateOdrlPolicy: PolicyValidator): Omit<ValidationResult, "valid"> {
  const problem = (path: string, message: string) => ({
    errors: [{ path, message }],
    warnings: [],
    type: undefined,
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return problem("JSON", e instanceof Error ? e.message : "not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return problem("policy", "must be an OdrlPolicy object");
  const v = value as Record<string, unknown>;
  const wrapped = typeof v.policy === "object" && v.policy !== null;
  return validateOdrlPolicy(wrapped ? v.policy : v, wrapped ? "policy.policy" : "policy");
}

function Problems({ list, className }: { list: PolicyProblem[]; className?: string }) {
  return (
    <ul className={className}>
      {list.map((p) => (
        <li key={`${p.path}:${p.message}`}>
          <code>{p.path}</code> {p.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * The JSON editor of an OdrlPolicy, validated against ODRL 2.2 as one types (the same validator
 * the server runs, so what passes here is what the API accepts), with the server's answer shown
 * when saving anyway.
 */
export function PolicyEditor({
  initial,
  mode,
  policyId,
  participantId,
  serverProblems,
  busy,
  validate,
  documentError,
}: {
  initial: string;
  mode: "create" | "update";
  policyId: string | null;
  participantId: string;
  serverProblems: PolicyProblem[] | null;
  busy: boolean;
  validate: PolicyValidator;
  /** the service's field error for the document, if the last save named it */
  documentError?: string;
}) {
  const [text, setText] = useState(initial);
  const live = useMemo(() => check(text, validate), [text, validate]);
  return (
    <Form method="post" className="card gov-form policy-editor" data-testid="policy-editor">
      <h2>{mode === "update" ? `Edit ${policyId}` : "New policy"}</h2>
      <input type="hidden" name="intent" value={mode} />
      <input type="hidden" name="participantId" value={participantId} />
      {policyId ? <input type="hidden" name="policyId" value={policyId} /> : null}
      <label htmlFor="policy-document">
        <span>
          OdrlPolicy (JSON): <code>@id</code>, <code>@type</code> and <code>policy</code> with{" "}
          <code>@type</code> Set, Offer or Agreement
        </span>
      </label>
      <Invalid message={documentError}>
        <textarea
          id="policy-document"
          name="document"
          rows={22}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby="policy-validation"
          className="mono"
        />
      </Invalid>
      <div id="policy-validation" aria-live="polite" data-testid="policy-validation">
        {live.errors.length === 0 ? (
          <p className="notice ok">Valid ODRL 2.2{live.type ? ` ${live.type}` : ""}.</p>
        ) : (
          <div className="notice error">
            <strong>
              {live.errors.length} problem{live.errors.length > 1 ? "s" : ""}:
            </strong>
            <Problems list={live.errors} />
          </div>
        )}
        {live.warnings.length ? <Problems list={live.warnings} className="small" /> : null}
        {serverProblems?.length ? (
          <div className="notice error" data-testid="server-problems">
            The server refused it:
            <Problems list={serverProblems} />
          </div>
        ) : null}
      </div>
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {mode === "update" ? "Save new version" : "Create and push to the connector"}
        </button>
        <a href={`/policies?participant=${encodeURIComponent(participantId)}`} className="button ghost">
          Cancel
        </a>
      </div>
    </Form>
  );
}
