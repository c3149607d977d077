import type { AuditLog } from "../audit/log";
import type { Config } from "../config";
import type { Dataspace } from "../dataspace";
import { describeUpstream } from "../dataspace/failures";
import { createClientCredentialsSource } from "../dataspace/oauth-token";
import { ODRL_CONTEXT, MANAGEMENT_CONTEXT } from "../dataspace/protocol";
import { operationDeadline, settle } from "../dataspace/runtime";
import {
  createUpstreamHttp,
  isNotFound,
  isUpstreamError,
  type UpstreamHttp,
} from "../dataspace/upstream-http";
import { type ApiError, badGateway, badRequest, conflict, notFound } from "../http/errors";
import { presentString } from "../http/handler";
import { migrate, type Db } from "../storage/database";
import type { OdrlPolicyDocument } from "./document";
import { describeProblems, validateOdrlPolicy, type ValidationResult } from "./odrl";
import { policyTemplates, type PolicyTemplate } from "./templates";

/**
 * ODRL policies for GET/POST/PUT/DELETE /api/admin/policies: validated against ODRL 2.2
 * (odrl.ts), pushed to the connector as policy definitions of a participant context, and kept in
 * the hub's policy registry (who wrote which version, when), so that the list can say whether the
 * connector holds the hub's latest version.
 *
 * The connector is the system of record for what is offered; the registry records the hub's
 * changes. Create goes to the connector (a failure is a 502, nothing is stored). Update and
 * delete use the EDC management API's PUT and DELETE of a policy definition; the embedded
 * development connector has neither, so there the registry holds the change and the list marks
 * the policy `connector.state = "hub-newer"` (or leaves a withdrawn policy out). Said in every
 * answer; never silent.
 */

export const POLICY_FIELDS_REQUIRED = "participantId and policy are required";
export const POLICY_UPDATE_FIELDS_REQUIRED = "policyId, participantId, and policy are required";
export const POLICY_ID_REQUIRED = "policyId query parameter is required";
export const POLICY_PUSH_FAILED = "Failed to push the policy to the connector";
export const POLICY_LIST_FAILED = "Failed to fetch policy definitions";

const POLICY_ID = /^[A-Za-z0-9][A-Za-z0-9._:~@-]{0,199}$/;

/** The spec's OdrlPolicy: `@id`, `@type`, and `policy` with `@type` Set, Offer or Agreement and its rules. */
export type { OdrlPolicyDocument };

export type ConnectorSyncState = "in-sync" | "hub-newer" | "missing-at-connector" | "connector-only";

export interface ListedPolicy extends OdrlPolicyDocument {
  participantId: string;
  /** hub: written through the hub (registry); connector: found only at the connector (seeded or written elsewhere) */
  source: "hub" | "connector";
  version: number | null;
  createdBy: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
  connector: { state: ConnectorSyncState; detail: string | null };
}

export interface PolicyService {
  list(participantId?: string): Promise<ListedPolicy[]>;
  get(participantId: string, policyId: string): Promise<ListedPolicy>;
  create(participantId: string, input: unknown, actor: string): Promise<ListedPolicy>;
  replace(policyId: string, participantId: string, input: unknown, actor: string): Promise<ListedPolicy>;
  remove(policyId: string, participantId: string | undefined, actor: string): Promise<void>;
  /** validation without storing, for the editor */
  check(input: unknown): ValidationResult & { document: OdrlPolicyDocument | null };
  templates(assignerDid?: string): PolicyTemplate[];
  /** the participant contexts policies can belong to */
  participants(): Promise<{ id: string; did: string; displayName: string }[]>;
}

interface RegistryRow {
  participant_id: string;
  policy_id: string;
  document: string;
  version: number;
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
  connector_state: "in-sync" | "hub-newer";
  connector_detail: string | null;
  deleted_at: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads the `policy` of a request: an OdrlPolicy (`{"@id", "@type", "policy": {...}}`) or, for
 * convenience, a bare ODRL policy (`{"@type": "Set", "permission": [...]}`), which is wrapped.
 */
export function toDocument(
  input: unknown,
  policyId?: string,
): { document: OdrlPolicyDocument | null; result: ValidationResult } {
  if (!isObject(input)) {
    return {
      document: null,
      result: {
        valid: false,
        type: undefined,
        warnings: [],
        errors: [{ path: "policy", message: "must be an OdrlPolicy object" }],
      },
    };
  }
  const wrapped = isObject(input.policy);
  const inner = (wrapped ? input.policy : input) as Record<string, unknown>;
  const rawId = wrapped ? input["@id"] : (input["@id"] ?? input.uid);
  const errors: ValidationResult["errors"] = [];
  let id = typeof rawId === "string" && rawId.trim() !== "" ? rawId : undefined;
  if (rawId !== undefined && typeof rawId !== "string")
    errors.push({ path: "policy.@id", message: "must be a string" });
  if (policyId) {
    if (id && id !== policyId)
      errors.push({ path: "policy.@id", message: `"${id}" differs from policyId "${policyId}"` });
    id = policyId;
  }
  id = id ?? `policy-${crypto.randomUUID()}`;
  if (!POLICY_ID.test(id)) {
    errors.push({
      path: "policy.@id",
      message:
        "must start with a letter or digit and hold only letters, digits and . _ : ~ @ - (at most 200)",
    });
  }
  if (wrapped && input["@type"] !== undefined && typeof input["@type"] !== "string")
    errors.push({ path: "policy.@type", message: "must be a string" });
  const result = validateOdrlPolicy(inner, wrapped ? "policy.policy" : "policy");
  result.errors.unshift(...errors);
  result.valid = result.errors.length === 0;
  const { "@context": _ctx, uid: _uid, ...rest } = inner;
  void _ctx;
  void _uid;
  const document: OdrlPolicyDocument = {
    "@id": id,
    "@type": wrapped && typeof input["@type"] === "string" ? input["@type"] : "PolicyDefinition",
    policy: {
      ...rest,
      "@type": String(inner["@type"] ?? ""),
      permission: (inner.permission ?? []) as Record<string, unknown>[],
      prohibition: (inner.prohibition ?? []) as Record<string, unknown>[],
      obligation: (inner.obligation ?? []) as Record<string, unknown>[],
    },
  };
  return { document: result.valid ? document : null, result };
}

function invalid(result: ValidationResult): ApiError {
  return badRequest(describeProblems(result.errors), { problems: result.errors, warnings: result.warnings });
}

/** The connector's policy definition body (EDC management API). */
function definitionBody(doc: OdrlPolicyDocument) {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@id": doc["@id"],
    "@type": "PolicyDefinition",
    policy: { "@context": ODRL_CONTEXT, ...doc.policy },
  };
}

/** A connector policy definition as an OdrlPolicy. */
function fromConnector(raw: Record<string, unknown>): OdrlPolicyDocument {
  const p = isObject(raw.policy) ? raw.policy : isObject(raw["edc:policy"]) ? raw["edc:policy"] : {};
  const { "@context": _c, ...policy } = p;
  void _c;
  const t = policy["@type"] ?? policy["odrl:type"];
  const type = typeof t === "string" ? t.replace(/^odrl:/, "") : "Set";
  const rules = (k: string) => {
    const v = policy[k] ?? policy[`odrl:${k}`];
    return Array.isArray(v) ? (v as Record<string, unknown>[]) : isObject(v) ? [v] : [];
  };
  return {
    "@id": String(raw["@id"]),
    "@type": "PolicyDefinition",
    policy: {
      ...policy,
      "@type": type,
      permission: rules("permission"),
      prohibition: rules("prohibition"),
      obligation: rules("obligation"),
    },
  };
}

export function createPolicyService(deps: {
  db: Db;
  audit: AuditLog;
  config: Config;
  dataspace: Dataspace;
}): PolicyService {
  const { db, audit, config, dataspace } = deps;
  migrate(db, "policies-1", [
    `CREATE TABLE policy_registry (
      participant_id TEXT NOT NULL,
      policy_id TEXT NOT NULL,
      document TEXT NOT NULL,
      version INTEGER NOT NULL,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_by TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      connector_state TEXT NOT NULL,
      connector_detail TEXT,
      deleted_at TEXT,
      PRIMARY KEY (participant_id, policy_id)
    )`,
  ]);
  const getRow = db.prepare("SELECT * FROM policy_registry WHERE participant_id = ? AND policy_id = ?");
  const rowsOf = db.prepare("SELECT * FROM policy_registry WHERE participant_id = ?");
  const rowsById = db.prepare("SELECT * FROM policy_registry WHERE policy_id = ? AND deleted_at IS NULL");
  const insertRow = db.prepare(
    `INSERT INTO policy_registry (participant_id, policy_id, document, version, created_by, created_at, updated_by, updated_at, connector_state, connector_detail, deleted_at)
     VALUES (@participant_id, @policy_id, @document, @version, @created_by, @created_at, @updated_by, @updated_at, @connector_state, @connector_detail, NULL)
     ON CONFLICT(participant_id, policy_id) DO UPDATE SET document = excluded.document, version = excluded.version,
       created_by = excluded.created_by, created_at = excluded.created_at, updated_by = excluded.updated_by,
       updated_at = excluded.updated_at, connector_state = excluded.connector_state, connector_detail = excluded.connector_detail, deleted_at = NULL`,
  );
  const updateRow = db.prepare(
    `UPDATE policy_registry SET document = @document, version = @version, updated_by = @updated_by, updated_at = @updated_at,
       connector_state = @connector_state, connector_detail = @connector_detail WHERE participant_id = @participant_id AND policy_id = @policy_id`,
  );
  const insertWithdrawn = db.prepare(
    `INSERT INTO policy_registry (participant_id, policy_id, document, version, created_by, created_at, updated_by, updated_at, connector_state, connector_detail, deleted_at)
     VALUES (?, ?, '{}', 0, 'connector', ?, ?, ?, 'in-sync', NULL, ?)
     ON CONFLICT(participant_id, policy_id) DO UPDATE SET deleted_at = excluded.deleted_at, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
  );
  const deleteRow = db.prepare(
    "UPDATE policy_registry SET deleted_at = ?, updated_by = ?, updated_at = ? WHERE participant_id = ? AND policy_id = ?",
  );

  const rt = () => dataspace.runtime;

  /** PUT and DELETE of policy definitions: the EDC management API, with the configured token (connector mode only). */
  let extraHttp: UpstreamHttp | undefined;
  function managementHttp(): UpstreamHttp | undefined {
    if (dataspace.mode !== "connector" || !config.connector) return undefined;
    if (!extraHttp) {
      const c = config.connector;
      extraHttp = createUpstreamHttp({
        name: "connector",
        baseUrl: c.managementUrl,
        timeoutMs: config.upstreamTimeoutMs,
        tokens:
          c.tokenUrl && c.clientId
            ? createClientCredentialsSource({
                tokenUrl: c.tokenUrl,
                clientId: c.clientId,
                clientSecret: c.clientSecret ?? "",
                timeoutMs: config.upstreamTimeoutMs,
              })
            : undefined,
      });
    }
    return extraHttp;
  }
  const definitionPath = (participantId: string, policyId: string) =>
    `/${rt().connector.apiVersion}/participants/${encodeURIComponent(participantId)}/policydefinitions/${encodeURIComponent(policyId)}`;
  const EMBEDDED_NOTE =
    "the embedded development connector cannot update or delete policy definitions; the hub's registry holds this change";

  const record = (action: string, actor: string, target: string, outcome = "success") =>
    audit.append({ action, actor, target, outcome, kind: "policy" });

  function listed(row: RegistryRow, atConnector: boolean): ListedPolicy {
    const doc = JSON.parse(row.document) as OdrlPolicyDocument;
    const state: ConnectorSyncState = !atConnector ? "missing-at-connector" : row.connector_state;
    return {
      ...doc,
      participantId: row.participant_id,
      source: "hub",
      version: row.version,
      createdBy: row.created_by,
      updatedBy: row.updated_by,
      updatedAt: row.updated_at,
      connector: {
        state,
        detail:
          state === "missing-at-connector"
            ? "the connector no longer lists this policy definition"
            : state === "hub-newer"
              ? (row.connector_detail ?? EMBEDDED_NOTE)
              : null,
      },
    };
  }

  async function connectorDefinitions(
    participantId: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await rt().connector.listPolicyDefinitions(participantId, signal);
    } catch (e) {
      if (isNotFound(e)) throw notFound(`Participant context ${participantId} not found`);
      throw badGateway(POLICY_LIST_FAILED, describeUpstream(e));
    }
  }

  async function listFor(participantId: string, signal: AbortSignal): Promise<ListedPolicy[]> {
    const defs = await connectorDefinitions(participantId, signal);
    const rows = new Map((rowsOf.all(participantId) as RegistryRow[]).map((r) => [r.policy_id, r]));
    const out: ListedPolicy[] = [];
    const seen = new Set<string>();
    for (const d of defs) {
      const id = String(d["@id"]);
      seen.add(id);
      const row = rows.get(id);
      if (row?.deleted_at) continue; // withdrawn through the hub (the connector could not delete it)
      if (row) out.push(listed(row, true));
      else
        out.push({
          ...fromConnector(d),
          participantId,
          source: "connector",
          version: null,
          createdBy: null,
          updatedBy: null,
          updatedAt: typeof d.createdAt === "number" ? new Date(d.createdAt).toISOString() : null,
          connector: { state: "connector-only", detail: "written at the connector, not through the hub" },
        });
    }
    for (const row of rows.values())
      if (!seen.has(row.policy_id) && !row.deleted_at) out.push(listed(row, false));
    return out.sort((a, b) => a["@id"].localeCompare(b["@id"]));
  }

  async function activeContexts(signal: AbortSignal) {
    try {
      const contexts = await rt().connector.listParticipantContexts(signal);
      return contexts.filter((c) => c.state === undefined || c.state === "ACTIVATED");
    } catch (e) {
      throw badGateway(POLICY_LIST_FAILED, describeUpstream(e));
    }
  }

  async function findExisting(
    participantId: string,
    policyId: string,
  ): Promise<{ row: RegistryRow | undefined; atConnector: boolean }> {
    const row = getRow.get(participantId, policyId) as RegistryRow | undefined;
    const defs = await connectorDefinitions(participantId, operationDeadline(rt()));
    const atConnector = defs.some((d) => d["@id"] === policyId);
    return { row: row?.deleted_at ? undefined : row, atConnector: atConnector && !row?.deleted_at };
  }

  return {
    async list(participantId) {
      const deadline = operationDeadline(rt());
      if (participantId) return listFor(participantId, deadline);
      const contexts = await activeContexts(deadline);
      const lists = await Promise.all(contexts.map((c) => settle(listFor(c["@id"], deadline))));
      return lists.flatMap((l) => (l.ok ? l.value : []));
    },

    async get(participantId, policyId) {
      const found = (await listFor(participantId, operationDeadline(rt()))).find(
        (p) => p["@id"] === policyId,
      );
      if (!found) throw notFound(`Policy ${policyId} not found for participant ${participantId}`);
      return found;
    },

    async create(participantId, input, actor) {
      const { document, result } = toDocument(input);
      if (!document) throw invalid(result);
      const existing = getRow.get(participantId, document["@id"]) as RegistryRow | undefined;
      if (existing && !existing.deleted_at)
        throw conflict(`A policy with id ${document["@id"]} already exists for participant ${participantId}`);
      let state: RegistryRow["connector_state"] = "in-sync";
      try {
        await rt().connector.createPolicyDefinition(
          participantId,
          definitionBody(document),
          operationDeadline(rt()),
        );
      } catch (e) {
        // a policy withdrawn in the hub that the embedded connector could not delete: the hub takes it back
        const revived = existing?.deleted_at && !managementHttp() && isUpstreamError(e) && e.status === 409;
        if (revived) state = "hub-newer";
        else {
          record("policy.create", actor, `${participantId}/${document["@id"]}`, "failure");
          if (isNotFound(e)) throw notFound(`Participant context ${participantId} not found`);
          if (isUpstreamError(e) && e.status === 409)
            throw conflict(
              `The connector already holds a policy definition ${document["@id"]} for ${participantId}`,
            );
          if (isUpstreamError(e) && e.status === 400)
            throw badRequest(`The connector refused the policy: ${e.message}`);
          throw badGateway(POLICY_PUSH_FAILED, describeUpstream(e));
        }
      }
      const now = new Date().toISOString();
      const row: RegistryRow = {
        participant_id: participantId,
        policy_id: document["@id"],
        document: JSON.stringify(document),
        version: (existing?.version ?? 0) + 1,
        created_by: actor,
        created_at: now,
        updated_by: actor,
        updated_at: now,
        connector_state: state,
        connector_detail: state === "hub-newer" ? EMBEDDED_NOTE : null,
        deleted_at: null,
      };
      db.transaction(() => {
        insertRow.run(row);
        record(
          "policy.create",
          actor,
          `${participantId}/${document["@id"]}`,
          state === "in-sync"
            ? `${result.type} pushed to the connector`
            : `${result.type} taken back in the hub (${EMBEDDED_NOTE})`,
        );
      })();
      return listed(row, true);
    },

    async replace(policyId, participantId, input, actor) {
      const { document, result } = toDocument(input, policyId);
      if (!document) throw invalid(result);
      const { row, atConnector } = await findExisting(participantId, policyId);
      if (!row && !atConnector)
        throw notFound(`Policy ${policyId} not found for participant ${participantId}`);
      let state: RegistryRow["connector_state"] = "in-sync";
      let detail: string | null = null;
      const http = managementHttp();
      if (!http) {
        state = "hub-newer";
        detail = EMBEDDED_NOTE;
      } else {
        try {
          await http.send("PUT", definitionPath(participantId, policyId), {
            body: definitionBody(document),
            signal: operationDeadline(rt()),
          });
        } catch (e) {
          record("policy.update", actor, `${participantId}/${policyId}`, "failure");
          if (isUpstreamError(e) && e.status === 400)
            throw badRequest(`The connector refused the policy: ${e.message}`);
          throw badGateway(POLICY_PUSH_FAILED, describeUpstream(e));
        }
      }
      const now = new Date().toISOString();
      const next: RegistryRow = {
        participant_id: participantId,
        policy_id: policyId,
        document: JSON.stringify(document),
        version: (row?.version ?? 1) + 1,
        created_by: row?.created_by ?? "connector",
        created_at: row?.created_at ?? now,
        updated_by: actor,
        updated_at: now,
        connector_state: state,
        connector_detail: detail,
        deleted_at: null,
      };
      db.transaction(() => {
        if (row) updateRow.run(next);
        else insertRow.run(next);
        record(
          "policy.update",
          actor,
          `${participantId}/${policyId}`,
          state === "in-sync"
            ? `version ${next.version} pushed to the connector`
            : `version ${next.version} kept by the hub (${detail})`,
        );
      })();
      return listed(next, atConnector || state === "in-sync");
    },

    async remove(policyId, participantId, actor) {
      let owner = participantId;
      if (!owner) {
        const candidates = rowsById.all(policyId) as RegistryRow[];
        if (candidates.length > 1) {
          throw badRequest(
            `Policy ${policyId} exists for several participants (${candidates.map((c) => c.participant_id).join(", ")}): add participantId`,
          );
        }
        owner = candidates[0]?.participant_id;
        if (!owner) {
          // a policy written at the connector: look for it in every participant context
          const contexts = await activeContexts(operationDeadline(rt()));
          const hits: string[] = [];
          for (const c of contexts) {
            const defs = await settle(
              rt().connector.listPolicyDefinitions(c["@id"], operationDeadline(rt())),
            );
            if (defs.ok && defs.value.some((d) => d["@id"] === policyId)) hits.push(c["@id"]);
          }
          if (hits.length > 1)
            throw badRequest(
              `Policy ${policyId} exists for several participants (${hits.join(", ")}): add participantId`,
            );
          owner = hits[0];
        }
        if (!owner) throw notFound(`Policy ${policyId} not found`);
      }
      const { row, atConnector } = await findExisting(owner, policyId);
      if (!row && !atConnector) throw notFound(`Policy ${policyId} not found for participant ${owner}`);
      const http = managementHttp();
      if (http && atConnector) {
        try {
          await http.send("DELETE", definitionPath(owner, policyId), { signal: operationDeadline(rt()) });
        } catch (e) {
          record("policy.delete", actor, `${owner}/${policyId}`, "failure");
          if (isUpstreamError(e) && e.status === 409)
            throw conflict(
              `The connector refused to delete ${policyId}: a contract definition still uses it`,
            );
          if (!isNotFound(e))
            throw badGateway("Failed to delete the policy at the connector", describeUpstream(e));
        }
      } else if (!http && !row) {
        throw conflict(
          `Policy ${policyId} was written at the connector, and the embedded development connector cannot delete policy definitions; only policies created through the hub can be withdrawn here`,
        );
      }
      const now = new Date().toISOString();
      db.transaction(() => {
        if (row) deleteRow.run(now, actor, now, owner, policyId);
        else if (!http) insertWithdrawn.run(owner, policyId, now, actor, now, now);
        record(
          "policy.delete",
          actor,
          `${owner}/${policyId}`,
          http ? "deleted at the connector" : `withdrawn in the hub (${EMBEDDED_NOTE})`,
        );
      })();
    },

    check(input) {
      const { document, result } = toDocument(input);
      return { ...result, document };
    },

    templates: (assignerDid) => policyTemplates(assignerDid),

    async participants() {
      const contexts = await activeContexts(operationDeadline(rt()));
      const known = await settle(dataspace.listParticipants());
      const names = new Map<string, string>();
      if (known.ok)
        for (const p of known.value)
          if (typeof p.participantId === "string")
            names.set(p.participantId, String(p.displayName ?? p.participantId));
      return contexts.map((c) => ({
        id: c["@id"],
        did: c.participantId ?? c.identity ?? "",
        displayName: names.get(c["@id"]) ?? c["@id"],
      }));
    },
  };
}

/** What POST /api/admin/policies reads: `participantId` and `policy`, both required. */
export function parsePolicyCreate(body: Record<string, unknown>): { participantId: string; policy: unknown } {
  const participantId = presentString(body.participantId);
  if (!participantId || body.policy === undefined || body.policy === null)
    throw badRequest(POLICY_FIELDS_REQUIRED);
  return { participantId, policy: body.policy };
}

export function parsePolicyUpdate(body: Record<string, unknown>): {
  policyId: string;
  participantId: string;
  policy: unknown;
} {
  const policyId = presentString(body.policyId);
  const participantId = presentString(body.participantId);
  if (!policyId || !participantId || body.policy === undefined || body.policy === null)
    throw badRequest(POLICY_UPDATE_FIELDS_REQUIRED);
  return { policyId, participantId, policy: body.policy };
}
