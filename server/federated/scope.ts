/**
 * The caller's ODRL scope for insight answers, read from the marketplace layer (l1): the access
 * body's secondary-use Set policy (prohibitions such as re-identification, obligations such as
 * anonymisation) and, for a data user, the Agreement policies assigned to their organisation
 * (purposes). What it means for answers:
 *
 * - every insight answer is aggregate: no template, cohort or dashboard returns a person's row;
 * - the questions and the dashboard apply the scope's k (small-cell suppression with complementary
 *   suppression) to everyone but the access body (HDAB_AUTHORITY) and the operator (CONNECTOR_ADMIN),
 *   whose supervisory scope shows exact counts; the federated summary reads no scope: its own k
 *   (service.ts `kFrom`) applies to every caller;
 * - re-identification is prohibited: answers carry no names, identifiers or birth dates.
 */
import { z } from "zod";
import type { SessionUser } from "../auth/user";
import { str } from "../analytics";
import { findAll, type GraphNode, type GraphStore } from "../graph";
import { createKept, EVERYONE, identityOf } from "../http/kept";
import { ruleActions } from "../policies";

const texts = z.array(z.string());
/** the caller's scope as the insight answers state it */
export const odrlScope = z.object({
  role: z.string().describe("the role the scope derives from"),
  aggregateOnly: z.literal(true),
  k: z.number().int().nullable().describe("null: exact counts (supervisory scope)"),
  policies: z.array(z.object({ id: z.string(), type: z.string(), assigner: z.string().nullable() })),
  prohibitions: texts,
  obligations: texts,
  purposes: texts,
  applied: texts.describe("what was applied, in plain words"),
});
export type OdrlScope = z.infer<typeof odrlScope>;

const EXEMPT_ROLES = ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"] as const;

export function isSupervisory(user: Pick<SessionUser, "roles">): boolean {
  return user.roles.some((r) => (EXEMPT_ROLES as readonly string[]).includes(r));
}

function primaryRole(user: Pick<SessionUser, "roles">): string {
  const order = [
    "CONNECTOR_ADMIN",
    "HDAB_AUTHORITY",
    "DATA_USER",
    "DATA_HOLDER",
    "TRUST_CENTER_OPERATOR",
    "CONNECTOR_USER_PARTICIPANT",
    "PATIENT",
  ];
  return order.find((r) => user.roles.includes(r as never)) ?? user.roles[0] ?? "unknown";
}

/** the ODRL policies of the graph, read once per graph version (policies can be edited in place) */
const keptPolicies = createKept<GraphNode[]>({ max: 8 });
const allPolicies = (graph: GraphStore) =>
  keptPolicies({ caller: EVERYONE, versions: [identityOf(graph), graph.version()] }, () =>
    findAll(graph, "OdrlPolicy"),
  );

/** the caller's scope under the configured `k` (none for supervisory roles) */
export async function scopeFor(
  graph: GraphStore,
  user: Pick<SessionUser, "roles" | "participantDid">,
  k: number,
): Promise<OdrlScope> {
  const all = await allPolicies(graph);
  const policies: GraphNode[] = all.filter((p) => p.properties.policyType === "Set").slice(0, 5);
  if (user.participantDid)
    policies.push(
      ...all.filter(
        (p) => p.properties.policyType === "Agreement" && p.properties.assignee === user.participantDid,
      ),
    );
  const prohibitions = new Set<string>(["ehds:reIdentify"]);
  const obligations = new Set<string>();
  const purposes = new Set<string>();
  for (const p of policies) {
    for (const a of ruleActions(p.properties.prohibition)) prohibitions.add(a);
    for (const a of ruleActions(p.properties.obligation)) obligations.add(a);
    if (str(p.properties.policyType) === "Agreement")
      for (const x of (str(p.properties.purpose) ?? "").split(/\s+/).filter(Boolean)) purposes.add(x);
  }
  const effectiveK = isSupervisory(user) ? null : k;
  const applied = [
    "aggregate-only: answers are counts and statistics, never a person's records",
    effectiveK === null
      ? "exact counts: supervisory scope of the access body / operator (no k threshold)"
      : `k = ${effectiveK}: counts from 1 to ${effectiveK - 1} suppressed, with complementary suppression`,
    "re-identification prohibited: no names, identifiers or dates of birth in answers",
  ];
  if (purposes.size) applied.push(`purpose-bound: ${[...purposes].join(", ")} (from your agreements)`);
  return {
    role: primaryRole(user),
    aggregateOnly: true,
    k: effectiveK,
    policies: policies.map((p) => ({
      id: p.id,
      type: str(p.properties.policyType) ?? "Policy",
      assigner: str(p.properties.assigner) ?? null,
    })),
    prohibitions: [...prohibitions].sort(),
    obligations: [...obligations].sort(),
    purposes: [...purposes].sort(),
    applied,
  };
}
