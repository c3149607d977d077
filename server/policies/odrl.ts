/**
 * Structural validation of ODRL 2.2 policies (W3C Recommendation "ODRL Information Model 2.2",
 * and the terms of the "ODRL Vocabulary & Expression 2.2"), as the hub accepts them for the
 * connector's policy definitions. Every problem is reported with the JSON path where it sits, so
 * a 400 can say exactly what is wrong.
 *
 * What is checked:
 * - the policy's `@type` is Set, Offer or Agreement (prefixed `odrl:` or the full IRI are accepted);
 * - at least one permission, prohibition or obligation (IM 2.2 §2.1: a Policy MUST have at least one);
 * - an Offer names an assigner, an Agreement an assigner and an assignee (IM 2.2 §2.1.2, §2.1.3),
 *   on the policy or on every rule;
 * - `permission`, `prohibition`, `obligation`, `duty`, `remedy`, `consequence`, `constraint` and
 *   `refinement` are arrays of objects;
 * - every rule has exactly one action; an unprefixed action must be an ODRL 2.2 action, anything
 *   else must be a prefixed term or an IRI of a profile (e.g. `ehds:reIdentify`);
 * - every constraint has a leftOperand, an ODRL 2.2 operator and a rightOperand (or
 *   rightOperandReference); unprefixed left operands must be ODRL 2.2 left operands; logical
 *   constraints (and, or, xone, andSequence) hold constraints; set operators (isAnyOf, isAllOf,
 *   isNoneOf) take a list; dateTime wants an xsd:date or xsd:dateTime, elapsedTime and
 *   delayPeriod an xsd:duration;
 * - `conflict` is perm, prohibit or invalid.
 * Deprecated 2.1 terms (e.g. `share`, `copy`) are accepted with a warning.
 */

export const POLICY_TYPES = ["Set", "Offer", "Agreement"] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

// ODRL 2.2 actions: the core (use, transfer) and the Common Vocabulary
export const ODRL_ACTIONS = new Set([
  "use",
  "transfer",
  "acceptTracking",
  "aggregate",
  "annotate",
  "anonymize",
  "archive",
  "attribute",
  "compensate",
  "concurrentUse",
  "delete",
  "derive",
  "digitize",
  "display",
  "distribute",
  "ensureExclusivity",
  "execute",
  "extract",
  "give",
  "grantUse",
  "include",
  "index",
  "inform",
  "install",
  "modify",
  "move",
  "nextPolicy",
  "obtainConsent",
  "play",
  "present",
  "print",
  "read",
  "reproduce",
  "reviewPolicy",
  "sell",
  "stream",
  "synchronize",
  "textToSpeech",
  "transform",
  "translate",
  "uninstall",
  "watermark",
]);
const DEPRECATED_ACTIONS = new Set([
  "adHocShare",
  "append",
  "appendTo",
  "commercialize",
  "copy",
  "export",
  "lease",
  "lend",
  "license",
  "pay",
  "secondaryUse",
  "share",
  "shareAlike",
  "write",
  "writeTo",
]);
export const ODRL_LEFT_OPERANDS = new Set([
  "absolutePosition",
  "absoluteSize",
  "absoluteSpatialPosition",
  "absoluteTemporalPosition",
  "count",
  "dateTime",
  "delayPeriod",
  "deliveryChannel",
  "device",
  "elapsedTime",
  "event",
  "fileFormat",
  "industry",
  "language",
  "media",
  "meteredTime",
  "payAmount",
  "percentage",
  "product",
  "purpose",
  "recipient",
  "relativePosition",
  "relativeSize",
  "relativeSpatialPosition",
  "relativeTemporalPosition",
  "resolution",
  "spatial",
  "spatialCoordinates",
  "system",
  "systemDevice",
  "timeInterval",
  "unitOfCount",
  "version",
  "virtualLocation",
]);
export const ODRL_OPERATORS = new Set([
  "eq",
  "gt",
  "gteq",
  "hasPart",
  "isA",
  "isAllOf",
  "isAnyOf",
  "isNoneOf",
  "isPartOf",
  "lt",
  "lteq",
  "neq",
]);
const SET_OPERATORS = new Set(["isAnyOf", "isAllOf", "isNoneOf"]);
const LOGICAL = ["and", "or", "xone", "andSequence"] as const;
const CONFLICT = new Set(["perm", "prohibit", "invalid"]);
const DUTIES_OF = { permission: "duty", prohibition: "remedy", duty: "consequence" } as const;

const ODRL_NS = "http://www.w3.org/ns/odrl/2/";

export interface PolicyProblem {
  path: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: PolicyProblem[];
  warnings: PolicyProblem[];
  /** the policy's type, when it could be read */
  type: PolicyType | undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** a policy node's rule list (kept as a JSON text or an array): its object entries, none when unreadable */
export function rules(raw: unknown): Record<string, unknown>[] {
  let v: unknown = raw;
  if (typeof raw === "string") {
    try {
      v = JSON.parse(raw);
    } catch {
      return [];
    }
  }
  return Array.isArray(v)
    ? (v.filter((r) => typeof r === "object" && r !== null) as Record<string, unknown>[])
    : [];
}

/** the actions a policy node's rule list names (the rules whose action is a text) */
export function ruleActions(raw: unknown): string[] {
  return rules(raw)
    .map((r) => r.action)
    .filter((a): a is string => typeof a === "string" && a !== "");
}

/** `odrl:use`, `http://www.w3.org/ns/odrl/2/use` → `use`; other prefixed terms and IRIs stay as they are. */
export function localTerm(value: string): string {
  if (value.startsWith("odrl:")) return value.slice(5);
  if (value.startsWith(ODRL_NS)) return value.slice(ODRL_NS.length);
  return value;
}

/** A prefixed term (`ehds:reIdentify`) or an absolute IRI: a profile's extension term. */
const isExtension = (term: string) => /^[A-Za-z][\w.-]*:\S+$/.test(term);

/** the term of a value written as a string, `{"@id": ...}` or `{"rdf:value": ...}` */
function termOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObject(v)) {
    if (typeof v["@id"] === "string") return v["@id"];
    const value = v["rdf:value"] ?? v.value;
    if (value !== undefined) return termOf(value);
  }
  return undefined;
}

export function policyTypeOf(policy: unknown): PolicyType | undefined {
  if (!isObject(policy)) return undefined;
  const t = policy["@type"];
  const raw = typeof t === "string" ? t : Array.isArray(t) ? t.find((x) => typeof x === "string") : undefined;
  if (typeof raw !== "string") return undefined;
  const local = localTerm(raw);
  return (POLICY_TYPES as readonly string[]).includes(local) ? (local as PolicyType) : undefined;
}

const XSD_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const XSD_DURATION = /^-?P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

function literal(v: unknown): unknown {
  return isObject(v) && "@value" in v ? v["@value"] : v;
}

export function validateOdrlPolicy(policy: unknown, at = "policy"): ValidationResult {
  const errors: PolicyProblem[] = [];
  const warnings: PolicyProblem[] = [];
  const err = (path: string, message: string) => errors.push({ path, message });
  const warn = (path: string, message: string) => warnings.push({ path, message });

  if (!isObject(policy)) {
    err(at, "must be an ODRL policy object");
    return { valid: false, errors, warnings, type: undefined };
  }
  const type = policyTypeOf(policy);
  if (policy["@type"] === undefined) err(`${at}.@type`, "is required: Set, Offer or Agreement");
  else if (!type)
    err(
      `${at}.@type`,
      `${JSON.stringify(policy["@type"])} is not an ODRL policy type (Set, Offer or Agreement)`,
    );

  if (policy.conflict !== undefined) {
    const c = termOf(policy.conflict);
    if (!c || !CONFLICT.has(localTerm(c))) err(`${at}.conflict`, "must be perm, prohibit or invalid");
  }
  for (const k of ["uid", "@id", "profile", "inheritFrom"] as const) {
    const v = policy[k];
    if (
      v !== undefined &&
      typeof v !== "string" &&
      !(Array.isArray(v) && v.every((x) => typeof x === "string")) &&
      !isObject(v)
    ) {
      err(`${at}.${k}`, "must be an IRI (string)");
    }
  }

  const party = (rule: Json, name: "assigner" | "assignee") => rule[name] ?? policy[name];

  function arrayOf(holder: Json, key: string, path: string): Json[] {
    const v = holder[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      err(`${path}.${key}`, `must be an array of ${key} objects`);
      return [];
    }
    const out: Json[] = [];
    v.forEach((item, i) => {
      if (isObject(item)) out.push(item);
      else err(`${path}.${key}[${i}]`, "must be an object");
    });
    return out;
  }

  function checkConstraint(c: Json, path: string) {
    const logical = LOGICAL.find((op) => c[op] !== undefined);
    if (logical) {
      const members = c[logical];
      const list = isObject(members) && Array.isArray(members["@list"]) ? members["@list"] : members;
      if (!Array.isArray(list) || list.length < 2) {
        err(
          `${path}.${logical}`,
          `a logical constraint (${logical}) needs a list of at least two constraints`,
        );
        return;
      }
      list.forEach((m, i) => {
        if (isObject(m)) checkConstraint(m, `${path}.${logical}[${i}]`);
        else err(`${path}.${logical}[${i}]`, "must be a constraint object");
      });
      return;
    }
    const left = termOf(c.leftOperand);
    const op = termOf(c.operator);
    if (c.leftOperand === undefined) err(`${path}.leftOperand`, "is required");
    else if (!left) err(`${path}.leftOperand`, "must be a left operand term");
    else if (!ODRL_LEFT_OPERANDS.has(localTerm(left)) && !isExtension(left)) {
      err(
        `${path}.leftOperand`,
        `"${left}" is not an ODRL 2.2 left operand (e.g. purpose, dateTime, elapsedTime, spatial, recipient); extension operands must be prefixed`,
      );
    }
    if (c.operator === undefined) err(`${path}.operator`, "is required");
    else if (!op || !ODRL_OPERATORS.has(localTerm(op))) {
      err(
        `${path}.operator`,
        `"${op ?? JSON.stringify(c.operator)}" is not an ODRL 2.2 operator (${[...ODRL_OPERATORS].join(", ")})`,
      );
    }
    const hasRight = c.rightOperand !== undefined || c.rightOperandReference !== undefined;
    if (!hasRight) {
      err(`${path}.rightOperand`, "is required (or rightOperandReference)");
      return;
    }
    const right = literal(c.rightOperand);
    const opLocal = op ? localTerm(op) : "";
    const leftLocal = left ? localTerm(left) : "";
    if (c.rightOperand === undefined) return;
    if (SET_OPERATORS.has(opLocal) && !Array.isArray(right)) {
      warn(`${path}.rightOperand`, `operator ${opLocal} compares sets: give the rightOperand as a list`);
    }
    if (
      leftLocal === "dateTime" &&
      (typeof right !== "string" || !XSD_DATE.test(right) || Number.isNaN(Date.parse(right)))
    ) {
      err(`${path}.rightOperand`, "dateTime needs an xsd:date or xsd:dateTime value such as 2027-12-31");
    }
    if (
      (leftLocal === "elapsedTime" || leftLocal === "delayPeriod" || leftLocal === "meteredTime") &&
      (typeof right !== "string" || !XSD_DURATION.test(right))
    ) {
      err(`${path}.rightOperand`, `${leftLocal} needs an xsd:duration value such as P2Y or P90D`);
    }
    if (
      leftLocal === "count" &&
      !(typeof right === "number" || (typeof right === "string" && /^\d+$/.test(right)))
    ) {
      err(`${path}.rightOperand`, "count needs a non-negative integer");
    }
  }

  function checkConstraints(holder: Json, key: "constraint" | "refinement", path: string) {
    arrayOf(holder, key, path).forEach((c, i) => checkConstraint(c, `${path}.${key}[${i}]`));
  }

  function checkAction(rule: Json, path: string) {
    const a = rule.action;
    if (a === undefined) {
      err(`${path}.action`, "is required: every rule has exactly one action");
      return;
    }
    if (Array.isArray(a)) {
      err(`${path}.action`, "must be a single action, not a list (ODRL 2.2: a rule has exactly one action)");
      return;
    }
    const term = termOf(a);
    if (!term) {
      err(`${path}.action`, 'must be an action term, {"@id": ...} or {"rdf:value": ...}');
      return;
    }
    const local = localTerm(term);
    if (DEPRECATED_ACTIONS.has(local)) warn(`${path}.action`, `"${local}" is deprecated in ODRL 2.2`);
    else if (!ODRL_ACTIONS.has(local) && !isExtension(term)) {
      err(
        `${path}.action`,
        `"${term}" is not an ODRL 2.2 action (e.g. use, distribute, anonymize, delete, inform); extension actions must be prefixed, e.g. ehds:reIdentify`,
      );
    }
    if (isObject(a)) checkConstraints(a, "refinement", `${path}.action`);
  }

  function checkRule(rule: Json, path: string, kind: "permission" | "prohibition" | "duty") {
    checkAction(rule, path);
    checkConstraints(rule, "constraint", path);
    for (const p of ["target", "assigner", "assignee"] as const) {
      const v = rule[p];
      if (v !== undefined && !termOf(v) && !isObject(v))
        err(`${path}.${p}`, "must be an IRI or an object with @id / uid");
    }
    // a rule's own duties: a permission's duties, a prohibition's remedies, a duty's consequences
    const duties = DUTIES_OF[kind];
    arrayOf(rule, duties, path).forEach((d, i) => checkRule(d, `${path}.${duties}[${i}]`, "duty"));
    if (kind !== "permission" && rule.duty !== undefined)
      err(`${path}.duty`, `a ${kind} has no duties (ODRL 2.2: only permissions do)`);
  }

  const permissions = arrayOf(policy, "permission", at);
  const prohibitions = arrayOf(policy, "prohibition", at);
  const obligations = arrayOf(policy, "obligation", at);
  permissions.forEach((r, i) => checkRule(r, `${at}.permission[${i}]`, "permission"));
  prohibitions.forEach((r, i) => checkRule(r, `${at}.prohibition[${i}]`, "prohibition"));
  obligations.forEach((r, i) => checkRule(r, `${at}.obligation[${i}]`, "duty"));
  const rules = [...permissions, ...prohibitions, ...obligations];
  if (
    rules.length === 0 &&
    !errors.some((e) => /\.(permission|prohibition|obligation)(\[\d+\])?$/.test(e.path))
  ) {
    err(at, "has no rules: an ODRL policy needs at least one permission, prohibition or obligation");
  }

  const everyRuleHas = (name: "assigner" | "assignee") =>
    rules.length > 0 && rules.every((r) => party(r, name) !== undefined);
  if (type === "Offer" && !everyRuleHas("assigner"))
    err(
      `${at}.assigner`,
      "an Offer must name its assigner (the party offering), on the policy or on every rule",
    );
  if (type === "Agreement") {
    if (!everyRuleHas("assigner"))
      err(`${at}.assigner`, "an Agreement must name its assigner, on the policy or on every rule");
    if (!everyRuleHas("assignee"))
      err(`${at}.assignee`, "an Agreement must name its assignee, on the policy or on every rule");
  }
  if (type === "Set" && (policy.assigner !== undefined || policy.assignee !== undefined)) {
    warn(at, "a Set names no parties; use an Offer or an Agreement when assigner or assignee matter");
  }

  return { valid: errors.length === 0, errors, warnings, type };
}

/** One line for a 400: the first problem, and how many more there are. */
export function describeProblems(errors: readonly PolicyProblem[]): string {
  const first = errors[0];
  if (!first) return "The policy is not valid ODRL 2.2";
  const more =
    errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  return `Invalid ODRL 2.2 policy: ${first.path} ${first.message}${more}`;
}
