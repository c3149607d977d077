import type { Dataspace } from "../dataspace";
import { describeUpstream, notFoundOr502 } from "../dataspace/failures";
import { operationDeadline } from "../dataspace/runtime";
import { badGateway } from "../http/errors";
import type { PolicyRegistry, RegistryRow } from "./policy-registry";
import { POLICY_LIST_FAILED, fromConnector, type ListedPolicy } from "./policy-document";

/**
 * The connector's side of the policies: its policy definitions per participant context, merged
 * with the registry into the list (with each policy's sync state). Creates, PUTs and DELETEs go
 * through the dataspace's connector client (server/dataspace/connector-client.ts), to a configured
 * EDC connector and to the embedded one alike.
 */
export function createConnectorPolicies({ dataspace }: { dataspace: Dataspace }, registry: PolicyRegistry) {
  const { getRow, rowsOf, listed } = registry;
  const rt = () => dataspace.runtime;

  async function connectorDefinitions(
    participantId: string,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await rt().connector.listPolicyDefinitions(participantId, signal);
    } catch (e) {
      throw notFoundOr502(e, `Participant context ${participantId} not found`, POLICY_LIST_FAILED);
    }
  }

  async function listFor(participantId: string, signal?: AbortSignal): Promise<ListedPolicy[]> {
    return listFrom(participantId, await connectorDefinitions(participantId, signal));
  }

  /** the list of a participant context from its connector definitions and the registry's rows */
  async function listFrom(
    participantId: string,
    defs: readonly Record<string, unknown>[],
  ): Promise<ListedPolicy[]> {
    const rows = new Map((await rowsOf(participantId)).map((r) => [r.policy_id, r]));
    const out: ListedPolicy[] = [];
    const seen = new Set<string>();
    for (const d of defs) {
      const id = String(d["@id"]);
      seen.add(id);
      const row = rows.get(id);
      if (row?.deleted_at) continue; // withdrawn through the hub while the connector could not delete it
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

  async function activeContexts(signal?: AbortSignal) {
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
    const row = await getRow(participantId, policyId);
    const defs = await connectorDefinitions(participantId, operationDeadline(rt()));
    const atConnector = defs.some((d) => d["@id"] === policyId);
    return { row: row?.deleted_at ? undefined : row, atConnector: atConnector && !row?.deleted_at };
  }

  return {
    rt,
    connectorDefinitions,
    listFor,
    listFrom,
    activeContexts,
    findExisting,
  };
}
