import type { AuditLog } from "../audit/log";
import { didOfParticipant, type Dataspace } from "../dataspace";
import { describeUpstream } from "../dataspace/failures";
import { operationDeadline, settle } from "../dataspace/runtime";
import { isNotFound, isUpstreamError } from "../dataspace/upstream-http";
import { badGateway, badRequest, conflict, notFound } from "../http/errors";
import { invalidField } from "../http/field-errors";
import { createKept, deepFrozen, EVERYONE, inputVersions } from "../http/kept";
import type { Relational } from "../storage/relational";
import { createConnectorPolicies } from "./connector-policies";
import {
  POLICY_PUSH_FAILED,
  definitionBody,
  invalid,
  toDocument,
  type ListedPolicy,
  type OdrlPolicyDocument,
} from "./policy-document";
import { createPolicyRegistry, type RegistryRow } from "./policy-registry";
import { holdsSameDefinition, mayHaveLanded } from "./push-outcome";
import { policyTemplates } from "./templates";

/**
 * ODRL policies for GET/POST/PUT/DELETE /api/admin/policies: validated against ODRL 2.2
 * (odrl.ts), pushed to the connector as policy definitions of a participant context, and kept in
 * the hub's policy registry (who wrote which version, when), so that the list can say whether the
 * connector holds the hub's latest version.
 *
 * The connector is the system of record for what is offered; the registry records the hub's
 * changes. Create goes to the connector (a failure is a 502, nothing is stored). Update and
 * delete use the EDC management API's PUT and DELETE of a policy definition, on a configured EDC
 * connector and on the embedded development connector alike (issue 37); a refusal or failure
 * changes nothing in the registry (rows an earlier version marked `hub-newer` are still listed so).
 */

/** what a policy list reads: the participant contexts it covers and each one's definitions (null: failed) */
interface PolicyInputs {
  ids: string[];
  defs: (readonly Record<string, unknown>[] | null)[];
}

/** the registry's row of a document the connector now holds, the version after `prior`'s */
function pushedRow(
  participantId: string,
  document: OdrlPolicyDocument,
  actor: string,
  prior: Pick<RegistryRow, "version"> & Partial<Pick<RegistryRow, "created_by" | "created_at">>,
): RegistryRow {
  const now = new Date().toISOString();
  return {
    participant_id: participantId,
    policy_id: document["@id"],
    document: JSON.stringify(document),
    version: prior.version + 1,
    created_by: prior.created_by ?? actor,
    created_at: prior.created_at ?? now,
    updated_by: actor,
    updated_at: now,
    connector_state: "in-sync",
    connector_detail: null,
    deleted_at: null,
  };
}

/** a failed push: the connector's 404 as `missing`, its 400 as a refusal, anything else 502 */
const pushFailed = (e: unknown, missing: string) =>
  isNotFound(e)
    ? notFound(missing)
    : isUpstreamError(e) && e.status === 400
      ? badRequest(`The connector refused the policy: ${e.message}`)
      : badGateway(POLICY_PUSH_FAILED, describeUpstream(e));

/** the assigner as a policy may spell it: plain, compacted with the ODRL prefix, or expanded */
const ASSIGNER_KEYS = ["assigner", "odrl:assigner", "http://www.w3.org/ns/odrl/2/assigner"];

export async function createPolicyService(deps: { rel: Relational; audit: AuditLog; dataspace: Dataspace }) {
  const { rel, audit, dataspace } = deps;
  const registry = await createPolicyRegistry(rel, audit);
  const { getRow, rowsById, insertRow, updateRow, deleteRow, record, listed } = registry;
  const connector = createConnectorPolicies(deps, registry);
  const { rt, listFor, listFrom, activeContexts, findExisting } = connector;
  // the lists kept per version of their inputs (server/http/kept), frozen
  const keptLists = createKept<ListedPolicy[]>({ max: 16 });
  /** whether the connector holds this document after a push whose answer was lost ("unknown": no answer) */
  const landed = async (participantId: string, document: OdrlPolicyDocument) => {
    const defs = await settle(
      rt().connector.listPolicyDefinitions(participantId, AbortSignal.timeout(rt().timeoutMs)),
    );
    if (!defs.ok) return "unknown" as const;
    return holdsSameDefinition(defs.value, document) ? ("same" as const) : ("different" as const);
  };
  /**
   * A policy offers only in its own participant's name: every assigner it names (on the policy or a
   * rule) is the DID of the participant context it is written in; else 400, and nothing is pushed.
   */
  const assignsAsItself = async (participantId: string, document: OdrlPolicyDocument) => {
    const p = document.policy;
    const named = [p, ...(p.permission ?? []), ...(p.prohibition ?? []), ...(p.obligation ?? [])]
      .flatMap((r) => ASSIGNER_KEYS.map((k) => r[k]))
      .filter((a) => a !== undefined)
      .map((a) => (typeof a === "object" && a ? ((a as Record<string, unknown>)["@id"] ?? a) : a));
    if (named.length === 0) return;
    const did = await didOfParticipant(rt(), participantId, operationDeadline(rt()));
    if (!did) throw notFound(`Participant context ${participantId} not found`);
    if (named.some((a) => a !== did))
      throw invalidField(
        "policy.assigner",
        `must be ${did}, the DID of participant ${participantId}: a policy offers only in its own participant's name`,
      );
  };
  /** a PUT of `policyId`, the definition the connector holds; without it, a push of a new one */
  const push = async (participantId: string, document: OdrlPolicyDocument, policyId?: string) => {
    const body = definitionBody(document);
    const signal = operationDeadline(rt());
    if (policyId) await rt().connector.updatePolicyDefinition(participantId, policyId, body, signal);
    else await rt().connector.createPolicyDefinition(participantId, body, signal);
  };

  /**
   * What a list reads from the connector: the participant contexts it covers (the one asked, or every
   * active one) and the policy definitions of each; null where that lookup failed (the context is left
   * out of the whole list; asked for alone, the failure is the answer: 404 or 502).
   */
  async function inputsOf(participantId: string | undefined, signal?: AbortSignal): Promise<PolicyInputs> {
    if (participantId)
      return { ids: [participantId], defs: [await connector.connectorDefinitions(participantId, signal)] };
    const ids = (await activeContexts(signal)).map((c) => c["@id"]);
    const defs = await Promise.all(
      ids.map(async (id) => {
        const d = await settle(connector.connectorDefinitions(id, signal));
        return d.ok ? d.value : null;
      }),
    );
    return { ids, defs };
  }
  /** the merged list of those inputs, with the registry's rows */
  const listOf = async ({ ids, defs }: PolicyInputs) =>
    (await Promise.all(ids.map((id, i) => (defs[i] ? listFrom(id, defs[i]) : [])))).flat();

  return {
    /**
     * Kept per version of what the list reads: the registry's version (read first), the participant
     * contexts asked and the connector's definitions of each, as the read cache hands them out (a new
     * list from the connector is a new version). A failed definitions lookup leaves that context out,
     * and the list is built afresh each time until it answers again. No deadline armed per request
     * (a timer each, alive for the whole time-out): every upstream read has its own time-out.
     */
    async list(participantId?: string): Promise<ListedPolicy[]> {
      const registryVersion = await registry.version();
      const inputs = await inputsOf(participantId);
      const versions = inputs.defs.some((d) => !d) ? undefined : inputVersions(inputs.defs);
      if (!versions) return listOf(inputs);
      const args = [participantId ? "one" : "all", ...inputs.ids];
      return keptLists({ caller: EVERYONE, versions: [registryVersion, ...versions], args }, async () =>
        deepFrozen(await listOf(inputs)),
      );
    },

    async get(participantId: string, policyId: string): Promise<ListedPolicy> {
      const found = (await listFor(participantId)).find((p) => p["@id"] === policyId);
      if (!found) throw notFound(`Policy ${policyId} not found for participant ${participantId}`);
      return found;
    },

    async create(participantId: string, input: unknown, actor: string): Promise<ListedPolicy> {
      const { document, result } = toDocument(input);
      if (!document) throw invalid(result);
      await assignsAsItself(participantId, document);
      const existing = await getRow(participantId, document["@id"]);
      if (existing && !existing.deleted_at)
        throw conflict(`A policy with id ${document["@id"]} already exists for participant ${participantId}`);
      let readBack = false;
      try {
        await push(participantId, document);
      } catch (e) {
        // the push may have landed although its answer was lost (push-outcome.ts): read it back
        const unrecorded = (!existing || existing.deleted_at) && isUpstreamError(e) && e.status === 409;
        const held = mayHaveLanded(e) || unrecorded ? await landed(participantId, document) : null;
        if (held === "same") readBack = true;
        else {
          await record("policy.create", actor, `${participantId}/${document["@id"]}`, "failure");
          if (isUpstreamError(e) && e.status === 409 && held !== "unknown")
            throw conflict(
              `The connector already holds a policy definition ${document["@id"]} for ${participantId}`,
            );
          throw pushFailed(e, `Participant context ${participantId} not found`);
        }
      }
      const row = pushedRow(participantId, document, actor, { version: existing?.version ?? 0 });
      await registry.transaction(async (tx) => {
        await insertRow(row, tx);
        await record(
          "policy.create",
          actor,
          `${participantId}/${document["@id"]}`,
          readBack
            ? `${result.type} pushed to the connector (its answer was lost; read back from the connector)`
            : `${result.type} pushed to the connector`,
          tx,
        );
      });
      return listed(row, true);
    },

    async replace(
      policyId: string,
      participantId: string,
      input: unknown,
      actor: string,
    ): Promise<ListedPolicy> {
      const { document, result } = toDocument(input, policyId);
      if (!document) throw invalid(result);
      await assignsAsItself(participantId, document);
      const { row, atConnector } = await findExisting(participantId, policyId);
      if (!row && !atConnector)
        throw notFound(`Policy ${policyId} not found for participant ${participantId}`);
      try {
        // PUT of the definition the connector holds; one it lost (missing-at-connector) is pushed again
        await push(participantId, document, atConnector ? policyId : undefined);
      } catch (e) {
        await record("policy.update", actor, `${participantId}/${policyId}`, "failure");
        throw pushFailed(e, `Policy ${policyId} not found for participant ${participantId}`);
      }
      const next = pushedRow(participantId, document, actor, row ?? { version: 1, created_by: "connector" });
      await registry.transaction(async (tx) => {
        if (row) await updateRow(next, tx);
        else await insertRow(next, tx);
        await record(
          "policy.update",
          actor,
          `${participantId}/${policyId}`,
          `version ${next.version} pushed to the connector`,
          tx,
        );
      });
      return listed(next, true);
    },

    async remove(policyId: string, participantId: string | undefined, actor: string): Promise<void> {
      let owner = participantId;
      /** the one participant that holds the policy, or undefined; several are refused */
      const onlyOne = (ids: string[]) => {
        if (ids.length > 1)
          throw badRequest(
            `Policy ${policyId} exists for several participants (${ids.join(", ")}): add participantId`,
          );
        return ids[0];
      };
      if (!owner) {
        owner = onlyOne((await rowsById(policyId)).map((c) => c.participant_id));
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
          owner = onlyOne(hits);
        }
        if (!owner) throw notFound(`Policy ${policyId} not found`);
      }
      const { row, atConnector } = await findExisting(owner, policyId);
      if (!row && !atConnector) throw notFound(`Policy ${policyId} not found for participant ${owner}`);
      if (atConnector) {
        try {
          await rt().connector.deletePolicyDefinition(owner, policyId, operationDeadline(rt()));
        } catch (e) {
          await record("policy.delete", actor, `${owner}/${policyId}`, "failure");
          if (isUpstreamError(e) && e.status === 409)
            throw conflict(
              `The connector refused to delete ${policyId}: a contract definition still uses it`,
            );
          if (!isNotFound(e))
            throw badGateway("Failed to delete the policy at the connector", describeUpstream(e));
        }
      }
      const now = new Date().toISOString();
      await registry.transaction(async (tx) => {
        if (row) await deleteRow(owner, policyId, now, actor, tx);
        await record(
          "policy.delete",
          actor,
          `${owner}/${policyId}`,
          atConnector ? "deleted at the connector" : "withdrawn in the hub (the connector did not hold it)",
          tx,
        );
      });
    },

    templates: policyTemplates,

    /** the participant contexts policies can belong to */
    async participants(): Promise<{ id: string; did: string; displayName: string }[]> {
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

export type PolicyService = Awaited<ReturnType<typeof createPolicyService>>;
