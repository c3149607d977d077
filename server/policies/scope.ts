import { z } from "zod";
import { rules } from "./odrl";
import type { SessionUser } from "../auth/user";
import type { Dataspace } from "../dataspace";
import { settle } from "../dataspace/runtime";
import { callerKey, createKept, deepFrozen, inputVersions } from "../http/kept";
import { linked, type GraphNode, type GraphStore } from "../graph";

/**
 * GET /api/odrl/scope: what the caller may do with data, computed from who they are (their roles
 * and their organisation's DID from the signed-in session) and the marketplace layer (l1) of the
 * graph: the access body's Set, the Offers their organisation makes, the Agreements that name
 * their organisation as assignee, the Contracts those agreements belong to and the access body's
 * approvals (data permits) of those contracts; and, when the connector answers, the contract
 * negotiations their participant context finalised.
 *
 * A permission counts as effective only when its contract is active, an approval GRANTED it and
 * its dateTime limit has not passed: EHDS secondary use needs both the contract with the holder
 * and the access body's permit (Art. 68).
 */

const text = z.string().nullable();
const scopeRule = z.object({
  action: z.string(),
  target: text,
  constraints: z.array(z.record(z.string(), z.unknown())).describe("the rule's ODRL constraints as stored"),
  policyId: z.string().describe("the policy the rule comes from"),
  policyType: z.string(),
});
type ScopeRule = z.infer<typeof scopeRule>;
const scopeGrant = z.object({
  contractId: z.string(),
  agreementId: z.string(),
  assetId: text,
  datasetId: text,
  datasetTitle: text,
  provider: text,
  purpose: text,
  contractStatus: text,
  permit: z.object({ number: z.string(), status: z.string(), validUntil: text }).nullable(),
  validUntil: text,
  effective: z.boolean(),
  reason: text.describe("why a grant is not effective"),
});
type ScopeGrant = z.infer<typeof scopeGrant>;
const rulesOf = z.array(scopeRule);
/** GET /api/odrl/scope's answer */
export const effectiveScopeSchema = z.object({
  subject: z.object({
    username: z.string(),
    organisation: z.string(),
    did: text,
    roles: z.array(z.string()),
  }),
  standing: z
    .array(z.string())
    .describe(
      "provider (data holder), consumer (data user), supervisor (access body), operator, patient, trust-center",
    ),
  permissions: rulesOf,
  prohibitions: rulesOf,
  obligations: rulesOf,
  accessibleDatasets: z.array(
    z.object({ id: z.string(), title: z.string(), via: z.string(), purpose: text, until: text }),
  ),
  temporalLimit: z
    .object({ until: z.string(), contractId: z.string() })
    .nullable()
    .describe("the earliest date at which an effective permission ends; null when none has a limit"),
  hdabApproval: z
    .object({
      exists: z.boolean(),
      inForce: z.number().int(),
      granted: z.number().int(),
      pending: z.number().int(),
      revoked: z.number().int(),
    })
    .describe(
      "exists: a GRANTED data permit in force (not past its end) covers one of the caller's contracts",
    ),
  activeContract: z
    .object({ exists: z.boolean(), count: z.number().int() })
    .describe(
      "exists: an active contract not past its end, or a contract negotiation finalised at the connector",
    ),
  grants: z.array(scopeGrant),
  dataspaceAgreements: z
    .array(z.object({ negotiationId: z.string(), contractAgreementId: text, counterPartyAddress: text }))
    .nullable()
    .describe("contract negotiations the caller's participant context finalised at the connector"),
  notes: z.array(z.string()),
  computedAt: z.string().describe("ISO 8601 time"),
});
type EffectiveScope = z.infer<typeof effectiveScopeSchema>;

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

function toRules(policy: GraphNode, key: "permission" | "prohibition" | "obligation"): ScopeRule[] {
  return rules(policy.properties[key]).map((r) => ({
    action: typeof r.action === "string" ? r.action : JSON.stringify(r.action),
    target: str(r.target) ?? str(policy.properties.target),
    constraints: Array.isArray(r.constraint) ? (r.constraint as Record<string, unknown>[]) : [],
    policyId: policy.id,
    policyType: str(policy.properties.policyType) ?? "Policy",
  }));
}

function dateLimit(policy: GraphNode): string | null {
  for (const r of rules(policy.properties.permission)) {
    for (const c of Array.isArray(r.constraint) ? (r.constraint as Record<string, unknown>[]) : []) {
      if (
        c.leftOperand === "dateTime" &&
        (c.operator === "lteq" || c.operator === "lt") &&
        typeof c.rightOperand === "string"
      )
        return c.rightOperand;
    }
  }
  return null;
}

const dedupe = (list: ScopeRule[]) => {
  const seen = new Set<string>();
  return list.filter((r) => {
    const k = `${r.action}|${r.target}|${JSON.stringify(r.constraints)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

/** the scope as computed now, kept for nobody (effectiveScope keeps it) */
export async function computeEffectiveScope(
  deps: { graph: GraphStore; dataspace?: Dataspace },
  user: SessionUser,
  now = new Date(),
): Promise<EffectiveScope> {
  const { graph } = deps;
  const did = user.participantDid ?? null;
  const today = now.toISOString().slice(0, 10);
  const notes: string[] = [];
  const standing: string[] = [];
  const permissions: ScopeRule[] = [];
  const prohibitions: ScopeRule[] = [];
  const obligations: ScopeRule[] = [];
  const accessible = new Map<string, EffectiveScope["accessibleDatasets"][number]>();
  const access = (d: GraphNode, via: string, purpose: string | null, until: string | null) =>
    accessible.set(d.id, { id: d.id, title: str(d.properties.title) ?? d.id, via, purpose, until });
  const grants: ScopeGrant[] = [];

  const baseline = await graph.findNodes({ label: "OdrlPolicy", where: { policyType: "Set" }, limit: 20 });
  for (const b of baseline) {
    prohibitions.push(...toRules(b, "prohibition"));
    obligations.push(...toRules(b, "obligation"));
  }
  if (baseline.length)
    notes.push(
      `The access body's baseline (${baseline.map((b) => b.id).join(", ")}) applies to every secondary use.`,
    );

  if (user.roles.includes("DATA_HOLDER") && did) {
    standing.push("provider");
    const offers = await graph.findNodes({
      label: "OdrlPolicy",
      where: { policyType: "Offer", assigner: did },
      limit: 200,
    });
    const held = await graph.findNodes({ label: "HealthDataset", limit: 500 });
    const participant = (await graph.findNodes({ label: "Participant", where: { did }, limit: 1 }))[0];
    for (const d of held)
      if (participant && d.properties.holder === participant.properties.slug) access(d, "holder", null, null);
    for (const o of offers) {
      permissions.push(...toRules(o, "permission").map((r) => ({ ...r, action: `offer:${r.action}` })));
    }
    notes.push(
      `As data holder you offer ${offers.length} ODRL offer(s); the permissions marked offer: are what you grant others.`,
    );
  }

  if (did) {
    const agreements = await graph.findNodes({
      label: "OdrlPolicy",
      where: { policyType: "Agreement", assignee: did },
      limit: 500,
    });
    if (agreements.length) standing.push("consumer");
    for (const a of agreements) {
      const owners = await linked(graph, a.id, "HAS_POLICY", "in", 5);
      const contract = owners.find((n) => n.label === "Contract");
      if (!contract) continue;
      const permit = (await linked(graph, contract.id, "APPROVES", "in", 5))[0] ?? null;
      const [product] = await linked(graph, contract.id, "GOVERNS", "out", 1);
      const dataset = product
        ? ((await linked(graph, product.id, "DESCRIBED_BY", "out", 1))[0] ?? null)
        : null;
      const until = dateLimit(a) ?? str(contract.properties.validUntil);
      const contractStatus = str(contract.properties.status);
      const permitStatus = permit ? str(permit.properties.status) : null;
      let reason: string | null = null;
      if (contractStatus !== "active") reason = `contract is ${contractStatus ?? "not active"}`;
      else if (permitStatus !== "GRANTED")
        reason = permit ? `data permit is ${permitStatus}` : "no data permit of the access body";
      else if (until && until < today) reason = `expired on ${until}`;
      const effective = reason === null;
      grants.push({
        contractId: contract.id,
        agreementId: a.id,
        assetId: str(a.properties.target),
        datasetId: dataset?.id ?? null,
        datasetTitle: dataset ? (str(dataset.properties.title) ?? dataset.id) : null,
        provider: str(a.properties.assigner),
        purpose: str(a.properties.purpose),
        contractStatus,
        permit: permit
          ? {
              number: str(permit.properties.permitNumber) ?? permit.id,
              status: permitStatus ?? "unknown",
              validUntil: str(permit.properties.validUntil),
            }
          : null,
        validUntil: until,
        effective,
        reason,
      });
      if (effective) {
        permissions.push(...toRules(a, "permission"));
        prohibitions.push(...toRules(a, "prohibition"));
        obligations.push(...toRules(a, "obligation"));
        if (dataset) access(dataset, contract.id, str(a.properties.purpose), until);
      }
    }
  }

  if (user.roles.includes("HDAB_AUTHORITY")) {
    standing.push("supervisor");
    notes.push(
      "As access body you supervise secondary use: you see every permit and contract, and insight answers show exact counts; you hold no data access of your own.",
    );
  }
  if (user.roles.includes("CONNECTOR_ADMIN")) {
    standing.push("operator");
    notes.push("The operator runs the dataspace and holds no right to use health data.");
  }
  if (user.roles.includes("TRUST_CENTER_OPERATOR")) {
    standing.push("trust-center");
    notes.push(
      "The trust center resolves pseudonyms for permitted record linkage and supervises processing sessions; it holds no right to use health data.",
    );
  }
  if (user.roles.includes("PATIENT")) {
    standing.push("patient");
    permissions.push({
      action: "read",
      target: user.patientId ?? null,
      constraints: [],
      policyId: "gdpr-art-15",
      policyType: "Right of access (GDPR Art. 15)",
    });
    notes.push(
      "As patient you may read your own record (GDPR Art. 15) and opt out of secondary use; no ODRL agreement names you.",
    );
  }
  if (!did && !user.roles.includes("PATIENT"))
    notes.push("Your account belongs to no dataspace participant, so no ODRL agreement can name you.");

  let dataspaceAgreements: EffectiveScope["dataspaceAgreements"] = null;
  if (deps.dataspace && did) {
    const me = await settle(deps.dataspace.participantForUser(user));
    if (me.ok && !me.value.id.startsWith("user:")) {
      const contextId = me.value.id;
      const negotiations = await settle(deps.dataspace.listNegotiations(contextId));
      if (negotiations.ok) {
        dataspaceAgreements = negotiations.value
          .filter((n) => n.state === "FINALIZED" && n._demo !== true)
          .map((n) => ({
            negotiationId: String(n["@id"]),
            contractAgreementId: str(n.contractAgreementId) ?? str(n.contractId),
            counterPartyAddress: str(n.counterPartyAddress),
          }));
      } else
        notes.push(
          "The connector did not answer: contracts negotiated through the dataspace are not included.",
        );
    }
  }

  const effective = grants.filter((g) => g.effective);
  const limits = effective
    .filter((g) => g.validUntil)
    .sort((a, b) => (a.validUntil! < b.validUntil! ? -1 : 1));
  const approvals = (s: string) => grants.filter((g) => g.permit?.status === s).length;
  const notExpired = (until: string | null | undefined) => !until || until >= today;
  const permitsInForce = grants.filter(
    (g) => g.permit?.status === "GRANTED" && notExpired(g.permit.validUntil),
  ).length;
  const activeCount =
    grants.filter((g) => g.contractStatus === "active" && notExpired(g.validUntil)).length +
    (dataspaceAgreements?.length ?? 0);

  return {
    subject: { username: user.username, organisation: user.organisation, did, roles: [...user.roles] },
    standing,
    permissions: dedupe(permissions),
    prohibitions: dedupe(prohibitions),
    obligations: dedupe(obligations),
    accessibleDatasets: [...accessible.values()].sort((a, b) => a.title.localeCompare(b.title)),
    temporalLimit: limits[0] ? { until: limits[0].validUntil!, contractId: limits[0].contractId } : null,
    hdabApproval: {
      exists: permitsInForce > 0,
      inForce: permitsInForce,
      granted: approvals("GRANTED"),
      pending: approvals("PENDING"),
      revoked: approvals("REVOKED"),
    },
    activeContract: { exists: activeCount > 0, count: activeCount },
    grants,
    dataspaceAgreements,
    notes,
    computedAt: now.toISOString(),
  };
}

const keptScopes = new WeakMap<GraphStore, ReturnType<typeof createKept<EffectiveScope>>>();

/**
 * What of the dataspace a caller's scope reads, as versions (server/http/kept `inputVersions`); []
 * when it reads nothing of it, undefined when that cannot be told (a failed read: made each time).
 */
async function dataspaceVersions(
  deps: { dataspace?: Dataspace },
  user: SessionUser,
): Promise<(string | number)[] | undefined> {
  if (!deps.dataspace || !user.participantDid) return [];
  const { connector } = deps.dataspace.runtime;
  const me = await settle(deps.dataspace.participantForUser(user));
  if (!me.ok || me.value.id.startsWith("user:")) return undefined;
  const lists = await settle(
    Promise.all([connector.listParticipantContexts(), connector.listNegotiations(me.value.id)]),
  );
  return lists.ok ? inputVersions(lists.value) : undefined;
}

/**
 * The caller's effective ODRL scope (GET /api/odrl/scope), kept per caller (everything of the session
 * user it reads: name, organisation, DID, roles, patient id) while the graph has the same version, the
 * day is the same (what has expired) and what it read of the dataspace is the same, as built
 * (`computedAt` is the build's): a kept value, encoded once at the edge.
 */
export async function effectiveScope(
  deps: { graph: GraphStore; dataspace?: Dataspace },
  user: SessionUser,
  now = new Date(),
): Promise<EffectiveScope> {
  const { graph } = deps;
  const versions = await dataspaceVersions(deps, user);
  if (!versions) return computeEffectiveScope(deps, user, now);
  let kept = keptScopes.get(graph);
  if (!kept) keptScopes.set(graph, (kept = createKept<EffectiveScope>({ max: 1000 })));
  const key = {
    caller: callerKey("user", user),
    versions: [graph.version(), now.toISOString().slice(0, 10), ...versions],
  };
  return kept(key, async () => deepFrozen(await computeEffectiveScope(deps, user, now)));
}
