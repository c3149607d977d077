import type { z } from "zod";
import { isRuntimeScoped } from "../config";
import { MANAGEMENT_CONTEXT, querySpec } from "../dataspace-protocol";
import {
  createUpstreamHttp,
  UpstreamError,
  type UpstreamClientOptions,
  type UpstreamHttp,
} from "./upstream-http";
import {
  assetList,
  assetSchema,
  catalogSchema,
  contractDefinitionList,
  edrDataAddressSchema,
  idResponseSchema,
  negotiationList,
  negotiationSchema,
  participantContextList,
  participantContextSchema,
  type ParticipantContext,
  policyDefinitionList,
  policyDefinitionSchema,
  transferList,
  transferSchema,
} from "./upstream-schemas";

export interface ConnectorClientOptions extends Omit<UpstreamClientOptions, "baseUrl"> {
  managementUrl: string;
  apiVersion: string;
  /** a runtime-scoped connector's one participant (`edc.participant.id`; config requires it there) */
  participantId?: string;
}

/**
 * Where a pulled transfer's endpoint data reference is read: EDC 0.15's EDR cache API is only at `v3`
 * (its `v4beta` has none); the participant-scoped form is the embedded dataspace's (the virtual
 * connector has no such path: not verified against one, see the README's "Not done yet").
 */
export function edrDataAddressPath(apiVersion: string, contextPath: string, transferId: string): string {
  const id = encodeURIComponent(transferId);
  return isRuntimeScoped(apiVersion) ? `/v3/edrs/${id}/dataaddress` : `${contextPath}/edrs/${id}/dataaddress`;
}

const LIST_LIMIT = 500;
/** the path of a call in a context a runtime-scoped connector is not (never sent: see ctxPath) */
const FOREIGN = "\u0000foreign:";
type Body = Record<string, unknown>;

/**
 * Client of an EDC connector's management API. Two shapes, told apart by the API version:
 * - participant-scoped (the virtual connector, and the embedded development dataspace):
 *   `/{version}/participants/{context}/...`, many participant contexts in one runtime;
 * - runtime-scoped (`v4beta`: EDC 0.15.x): `/{version}/...`, one participant per runtime, so the
 *   context id of a call is not part of its path (docs/decisions/0048-real-edc-connector.md).
 * JSON-LD bodies with the management context (`management/v2`); lists are QuerySpec requests. One
 * instance per connector; every method takes an optional deadline signal.
 */
export type ConnectorClient = ReturnType<typeof createConnectorClient>;

export function createConnectorClient(options: ConnectorClientOptions) {
  // a connector given both a key and a token gets both, as before 0114 (a gateway may take the token)
  const { apiKey, ...rest } = options;
  const upstream = createUpstreamHttp({
    ...rest,
    name: "connector",
    baseUrl: options.managementUrl,
    headers: apiKey ? { "x-api-key": apiKey } : undefined,
  });
  const v = options.apiVersion;
  if (isRuntimeScoped(v) && !options.participantId)
    throw new Error(`a ${v} connector is one participant: its participant id is required`);
  const own = options.participantId!;
  const runtime = isRuntimeScoped(v) ? { "@id": own, identity: own, state: "ACTIVATED" } : undefined;
  /**
   * A runtime-scoped connector is one participant: its context is the runtime's participant id, and a
   * call in any other context is answered as a participant-scoped connector answers an unknown one (404),
   * without being sent: the runtime would take it as its own participant's (issue 34).
   */
  const notThisRuntime = (contextId: string) =>
    new UpstreamError(
      "connector",
      "status",
      `participant context ${contextId} not found: the connector is the runtime of ${runtime!["@id"]}`,
      404,
    );
  const ctxPath = runtime
    ? (contextId: string) =>
        contextId === runtime["@id"] ? `/${v}` : `${FOREIGN}${encodeURIComponent(contextId)}/`
    : (contextId: string) => `/${v}/participants/${encodeURIComponent(contextId)}`;
  const refuseForeign = (path: string) =>
    path.startsWith(FOREIGN)
      ? Promise.reject(notThisRuntime(decodeURIComponent(path.slice(FOREIGN.length).split("/")[0]!)))
      : undefined;
  const http: UpstreamHttp = {
    ...upstream,
    request: (method, path, o) => refuseForeign(path) ?? upstream.request(method, path, o),
    send: (method, path, o) => refuseForeign(path) ?? upstream.send(method, path, o),
  };
  const list = (sortField: string) =>
    querySpec({ offset: 0, limit: LIST_LIMIT, sortOrder: "DESC", sortField });
  const get = <S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal) =>
    http.request("GET", path, { schema, signal });
  const post = <S extends z.ZodType>(path: string, schema: S, body: unknown, signal?: AbortSignal) =>
    http.request("POST", path, { schema, body, signal });
  const item = (path: string, id: string) => `${path}/${encodeURIComponent(id)}`;
  const terminate = (path: string, body: Record<string, unknown>, signal?: AbortSignal) =>
    http.send("POST", `${path}/terminate`, { body: { "@context": [MANAGEMENT_CONTEXT], ...body }, signal });

  return {
    managementUrl: http.baseUrl,
    apiVersion: v,
    /** a runtime-scoped connector's one context is its participant (its id a DID where the dataspace uses DCP) */
    listParticipantContexts: (signal?: AbortSignal): Promise<ParticipantContext[]> =>
      runtime
        ? Promise.resolve([{ ...runtime }])
        : http.request("GET", `/${v}/participants`, {
            schema: participantContextList,
            query: { offset: 0, limit: LIST_LIMIT },
            signal,
          }),
    getParticipantContext: (id: string, signal?: AbortSignal): Promise<ParticipantContext> =>
      runtime
        ? (refuseForeign(ctxPath(id)) ?? Promise.resolve({ ...runtime }))
        : get(ctxPath(id), participantContextSchema, signal),

    listAssets: (id: string, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/assets/request`, assetList, querySpec({ limit: LIST_LIMIT }), signal),
    createAsset: (id: string, asset: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/assets`, idResponseSchema, asset, signal),
    /** one asset with its properties and data address (`GET …/assets/{id}`; 404 for an unknown id) */
    getAsset: (id: string, assetId: string, signal?: AbortSignal) =>
      get(item(`${ctxPath(id)}/assets`, assetId), assetSchema, signal),
    /** DELETE of an asset (204; 404 unknown; 409 while a contract agreement names it) */
    deleteAsset: (id: string, assetId: string, signal?: AbortSignal) =>
      http.send("DELETE", item(`${ctxPath(id)}/assets`, assetId), { signal }),

    listPolicyDefinitions: (id: string, signal?: AbortSignal) =>
      post(
        `${ctxPath(id)}/policydefinitions/request`,
        policyDefinitionList,
        querySpec({ limit: LIST_LIMIT }),
        signal,
      ) as Promise<Body[]>,
    createPolicyDefinition: (id: string, definition: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/policydefinitions`, idResponseSchema, definition, signal),
    /** one policy definition (`GET …/policydefinitions/{id}`; 404 for an unknown id) */
    getPolicyDefinition: (id: string, policyId: string, signal?: AbortSignal) =>
      get(item(`${ctxPath(id)}/policydefinitions`, policyId), policyDefinitionSchema, signal),
    /** PUT of a whole policy definition (204; 404 for an unknown id) */
    updatePolicyDefinition: (id: string, policyId: string, definition: Body, signal?: AbortSignal) =>
      http.send("PUT", item(`${ctxPath(id)}/policydefinitions`, policyId), { body: definition, signal }),
    /** DELETE of a policy definition (204; 404 unknown; 409 while a contract definition names it) */
    deletePolicyDefinition: (id: string, policyId: string, signal?: AbortSignal) =>
      http.send("DELETE", item(`${ctxPath(id)}/policydefinitions`, policyId), { signal }),

    /**
     * A contract definition: what offers which assets under which policies (IdResponse; 409 for a taken
     * id). EDC 0.15.1 does not check that its policies exist: the caller does.
     */
    createContractDefinition: (id: string, definition: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/contractdefinitions`, idResponseSchema, definition, signal),
    /** the context's contract definitions (EDC 0.15: `POST /v4beta/contractdefinitions/request`, a QuerySpec) */
    listContractDefinitions: (id: string, signal?: AbortSignal) =>
      post(
        `${ctxPath(id)}/contractdefinitions/request`,
        contractDefinitionList,
        querySpec({ limit: LIST_LIMIT }),
        signal,
      ),
    /** DELETE of a contract definition (204; 404 unknown) */
    deleteContractDefinition: (id: string, definitionId: string, signal?: AbortSignal) =>
      http.send("DELETE", item(`${ctxPath(id)}/contractdefinitions`, definitionId), { signal }),

    requestCatalog: (id: string, catalogRequest: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/catalog/request`, catalogSchema, catalogRequest, signal),

    listNegotiations: (id: string, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/contractnegotiations/request`, negotiationList, list("createdAt"), signal),
    initiateNegotiation: (id: string, contractRequest: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/contractnegotiations`, idResponseSchema, contractRequest, signal),
    getNegotiation: (id: string, negotiationId: string, signal?: AbortSignal) =>
      get(item(`${ctxPath(id)}/contractnegotiations`, negotiationId), negotiationSchema, signal),

    listTransfers: (id: string, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/transferprocesses/request`, transferList, list("createdAt"), signal),
    initiateTransfer: (id: string, transferRequest: Body, signal?: AbortSignal) =>
      post(`${ctxPath(id)}/transferprocesses`, idResponseSchema, transferRequest, signal),
    getTransfer: (id: string, transferId: string, signal?: AbortSignal) =>
      get(item(`${ctxPath(id)}/transferprocesses`, transferId), transferSchema, signal),
    /** `TerminateTransfer` with a reason: 204; 404 unknown, 409 ended already, 400 without a reason */
    terminateTransfer: (id: string, transferId: string, reason: string, signal?: AbortSignal) =>
      terminate(
        item(`${ctxPath(id)}/transferprocesses`, transferId),
        { "@type": "TerminateTransfer", reason },
        signal,
      ),
    /**
     * `TerminateNegotiation` with a reason: 204; 404 unknown, 409 ended already. EDC 0.15.1 refuses (400)
     * one without the negotiation's id in `@id`.
     */
    terminateNegotiation: (id: string, negotiationId: string, reason: string, signal?: AbortSignal) =>
      terminate(
        item(`${ctxPath(id)}/contractnegotiations`, negotiationId),
        { "@type": "TerminateNegotiation", "@id": negotiationId, reason },
        signal,
      ),
    getEndpointDataReference: (id: string, transferId: string, signal?: AbortSignal) =>
      refuseForeign(ctxPath(id)) ??
      get(edrDataAddressPath(v, ctxPath(id), transferId), edrDataAddressSchema, signal),
  };
}
