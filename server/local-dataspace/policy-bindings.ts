import { EDC_NAMESPACE, ODRL_CONTEXT, ODRL_NAMESPACE } from "../dataspace-protocol";
import type { Json } from "./models";

/**
 * Which policy terms the embedded connector accepts in a policy definition, as EDC's policy engine
 * decides it: EDC (0.15.1, `edc.policy.validation.enabled` true by default) refuses a policy
 * definition (400 InvalidRequest, on create and replace) when one of its rules names an action, or a
 * constraint a left operand, that no policy extension has bound to a scope (in its words: unboundTerms).
 *
 * EDC's own runtime binds `use` and `inForceDate`. The embedded connector stands for an EDC runtime
 * that also carries a policy extension binding the vocabulary of the hub's policy templates
 * (server/policies/templates.ts); anything else is refused as EDC refuses it.
 */

const EHDS_NAMESPACE = "https://w3id.org/ehds/";

const odrl = (terms: string[]) => terms.map((t) => ODRL_NAMESPACE + t);

/** EDC's runtime: `use` (written bare or as ODRL's) and the `inForceDate` of its contract-expiry function */
const EDC_ACTIONS = ["use", ...odrl(["use"])];
const EDC_OPERANDS = [EDC_NAMESPACE + "inForceDate"];

/** the hub's policy extension: the actions and left operands of its templates */
const HUB_ACTIONS = [
  ...odrl(["read", "distribute", "anonymize", "delete", "inform"]),
  EHDS_NAMESPACE + "reIdentify",
];
const HUB_OPERANDS = odrl(["purpose", "elapsedTime", "dateTime", "spatial", "event"]);

const BOUND_ACTIONS: ReadonlySet<string> = new Set([...EDC_ACTIONS, ...HUB_ACTIONS]);
const BOUND_OPERANDS: ReadonlySet<string> = new Set([...EDC_OPERANDS, ...HUB_OPERANDS]);

const PREFIXES: Record<string, string> = {
  odrl: ODRL_NAMESPACE,
  edc: EDC_NAMESPACE,
  ehds: EHDS_NAMESPACE,
};

/**
 * A term as JSON-LD expands it: known prefixes resolved, and bare names ODRL's only when the policy
 * names the ODRL context (without it EDC keeps and reports them bare: `action 'transform' …`).
 */
function expander(policy: Json): (term: string) => string {
  const context = policy["@context"];
  const odrlContext = (Array.isArray(context) ? context : [context]).includes(ODRL_CONTEXT);
  return (term) => {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(term)) return term;
    const colon = term.indexOf(":");
    if (colon < 0) return odrlContext ? ODRL_NAMESPACE + term : term;
    const base = PREFIXES[term.slice(0, colon)];
    return base ? base + term.slice(colon + 1) : term;
  };
}

/** the term an action or left operand names: a string, `{ "@id" }`, or ODRL's `{ "rdf:value": … }` */
function termOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.length ? termOf(value[0]) : null;
  if (value && typeof value === "object") {
    const o = value as Json;
    return termOf(o["@id"] ?? o["rdf:value"] ?? o.value);
  }
  return null;
}

const listOf = (v: unknown): Json[] =>
  (Array.isArray(v) ? v : v ? [v] : []).filter((r): r is Json => !!r && typeof r === "object");

const field = (o: Json, name: string) => o[name] ?? o[`odrl:${name}`] ?? o[ODRL_NAMESPACE + name];

/** the atomic constraints of a rule, through `and`/`or`/`xone`/`andSequence` */
function atomicConstraints(constraints: unknown): Json[] {
  const out: Json[] = [];
  for (const c of listOf(constraints)) {
    const nested = ["and", "or", "xone", "andSequence"].flatMap((op) => listOf(field(c, op)));
    if (nested.length) out.push(...atomicConstraints(nested));
    else out.push(c);
  }
  return out;
}

const OPERATORS: Record<string, string> = {
  eq: "EQ",
  neq: "NEQ",
  gt: "GT",
  gteq: "GEQ",
  lt: "LT",
  lteq: "LEQ",
  isAnyOf: "IS_ANY_OF",
  isAllOf: "IS_ALL_OF",
  isNoneOf: "IS_NONE_OF",
  isA: "IS_A",
  hasPart: "HAS_PART",
  isPartOf: "IS_PART_OF",
};

function describe(
  expand: (term: string) => string,
  kind: "Permission" | "Prohibition" | "Duty",
  constraints: Json[],
): string {
  const shown = constraints.map((c) => {
    const operand = expand(termOf(field(c, "leftOperand")) ?? "");
    const op = termOf(field(c, "operator")) ?? "";
    const bare = op.replace(/^odrl:/, "").replace(ODRL_NAMESPACE, "");
    const right = termOf(field(c, "rightOperand")) ?? String(field(c, "rightOperand") ?? "");
    return `Constraint '${operand}' ${OPERATORS[bare] ?? bare.toUpperCase()} '${right}'`;
  });
  return `Rule { ${kind} ${kind === "Duty" ? "constraint" : "constraints"}: [${shown.join(", ")}] }`;
}

/**
 * EDC's refusals of a policy's unbound terms, in its words (empty when every action and left operand
 * of every rule, duties included, is bound).
 */
export function unboundTerms(policy: Json): string[] {
  const messages: string[] = [];
  const expand = expander(policy);
  const visit = (rule: Json, kind: "Permission" | "Prohibition" | "Duty") => {
    const constraints = atomicConstraints(field(rule, "constraint"));
    const rule_ = describe(expand, kind, constraints);
    const action = termOf(field(rule, "action"));
    if (action && !BOUND_ACTIONS.has(expand(action)))
      messages.push(`action '${expand(action)}' is not bound to any scopes: ${rule_}`);
    for (const c of constraints) {
      const operand = termOf(field(c, "leftOperand"));
      if (!operand || BOUND_OPERANDS.has(expand(operand))) continue;
      messages.push(`leftOperand '${expand(operand)}' is not bound to any scopes: ${rule_} `);
      messages.push(`leftOperand '${expand(operand)}' is not bound to any functions: ${rule_}`);
    }
    for (const duty of listOf(field(rule, "duty"))) visit(duty, "Duty");
  };
  for (const r of listOf(field(policy, "permission"))) visit(r, "Permission");
  for (const r of listOf(field(policy, "prohibition"))) visit(r, "Prohibition");
  for (const r of listOf(field(policy, "obligation"))) visit(r, "Duty");
  return messages;
}
