import { randomUUID } from "node:crypto";
import {
  COMPACT_CONTEXT,
  EDC_NAMESPACE,
  isObject,
  MANAGEMENT_CONTEXT,
  type Criterion,
} from "../dataspace-protocol";
import { contextOfDspAddress, ctxKey, type LocalContext } from "./context";
import {
  badRequest,
  conflict,
  HttpError,
  notFound,
  objectBody,
  type LocalRequest,
  type Router,
} from "./http";
import type {
  AgreementRecord,
  AssetRecord,
  ContractDefinitionRecord,
  Json,
  NegotiationRecord,
  ParticipantRecord,
  PolicyDefinitionRecord,
  TransferRecord,
} from "./models";
import { catalogOfProvider } from "./catalog";
import { requestNegotiation, terminateNegotiation } from "./negotiations";
import { queryRecords } from "./query";
import type { Collection } from "./store";
import { unboundTerms } from "./policy-bindings";
import { endpointDataReference, requestTransfer, terminateTransfer } from "./transfers";

/**
 * The connector management API of the local dataspace, in the shape of the EDC virtual
 * connector: `/{version}/participants` and, per participant context, assets, policy and
 * contract definitions, catalogue requests, contract negotiations, transfer processes and EDRs.
 */

/** EDC's refusal of a catalogue request without an address (its CatalogRequest validator, a mandatory value) */
export const COUNTER_PARTY_ADDRESS_MISSING = `mandatory value '${EDC_NAMESPACE}counterPartyAddress' is missing or it is blank`;

const withContext = <T extends Json>(r: T) => ({ "@context": COMPACT_CONTEXT, ...r });
const idResponse = (id: string, createdAt: number) =>
  withContext({ "@type": "IdResponse", "@id": id, createdAt });

/**
 * A body of the participant-scoped management API, which validates it against schemas that require
 * the `management/v2` context (an EDC v3 body, `management/v0.0.1`, is refused): 400 otherwise.
 */
function inManagementContext(body: Json): Json {
  const context = body["@context"];
  if (!(Array.isArray(context) ? context : [context]).includes(MANAGEMENT_CONTEXT))
    throw badRequest(`@context must include ${MANAGEMENT_CONTEXT}`, "@context");
  return body;
}
const managementBody = (req: LocalRequest) => inManagementContext(objectBody(req));
/** the `@id` a body names, else a new one */
const idOf = (body: Json) => (typeof body["@id"] === "string" && body["@id"] ? body["@id"] : randomUUID());
/** a participant context's `properties`, when given: an object (400 otherwise) */
function propertiesOf(body: Json): Json | undefined {
  if (body.properties != null && !isObject(body.properties))
    throw badRequest("string found, object expected", "/properties");
  return body.properties as Json | undefined;
}

const SET_TYPES = ["Set", "odrl:Set", "http://www.w3.org/ns/odrl/2/Set"];

/**
 * The `policy` of a policy definition, as EDC's validator takes it: an object whose `@type` is the
 * ODRL Set (an Offer or an Agreement is refused, 400) whose actions and left operands are bound to a
 * scope (policy-bindings.ts; 400 InvalidRequest otherwise).
 */
function policyOf(body: Json): Json {
  const policy = body.policy as Json | undefined;
  if (!isObject(policy)) throw badRequest("policy is required", "policy");
  const type = policy["@type"];
  if (typeof type !== "string" || !SET_TYPES.includes(type))
    throw badRequest(
      "https://w3id.org/edc/v0.0.1/ns/policy/@type was expected to be http://www.w3.org/ns/odrl/2/Set but it was not",
      "https://w3id.org/edc/v0.0.1/ns/policy/@type",
    );
  const unbound = unboundTerms(policy);
  if (unbound.length) throw new HttpError(400, unbound[0], "InvalidRequest", null, unbound.slice(1));
  return policy;
}

function query<T extends Json>(records: T[], body: unknown): T[] {
  if (isObject(body)) inManagementContext(body);
  return queryRecords(records, body);
}

export function registerManagementApi(router: Router, ctx: LocalContext): void {
  const P = "/management/:version/participants";
  const C = `${P}/:ctx`;

  const participant = (req: LocalRequest): ParticipantRecord => {
    const p = ctx.store.get<ParticipantRecord>("participants", req.params.ctx);
    if (!p) throw notFound(`Participant context ${req.params.ctx} not found`);
    return p;
  };
  const active = (req: LocalRequest): ParticipantRecord => {
    const p = participant(req);
    if (p.state !== "ACTIVATED")
      throw new HttpError(
        409,
        `Participant context ${p["@id"]} is ${p.state}, not ACTIVATED`,
        "InvalidState",
      );
    return p;
  };
  /** `POST …/{path}/request`: the participant's records of `table` a QuerySpec selects */
  const listRoute = (path: string, table: Collection) =>
    router.add("POST", `${C}/${path}/request`, (req) => ({
      body: query(ctx.store.list<Json>(table, participant(req)["@id"]), req.body).map(withContext),
    }));
  /** `GET …/{path}/:id`: the participant's record of `table` (404 "{what} {id} not found" otherwise) */
  const getRoute = (path: string, table: Collection, what: string) =>
    router.add("GET", `${C}/${path}/:id`, (req) => {
      const r = ctx.store.get<Json>(table, ctxKey(participant(req)["@id"], req.params.id));
      if (!r) throw notFound(`${what} ${req.params.id} not found`);
      return { body: withContext(r) };
    });
  /**
   * `DELETE …/{path}/:id` as EDC's management API answers it: 204; 404 for an unknown id; 409 with
   * `namedBy`'s text while another record names it
   */
  const deleteRoute = (
    path: string,
    table: Collection,
    type: string,
    namedBy: (contextId: string, id: string) => string | undefined = () => undefined,
  ) =>
    router.add("DELETE", `${C}/${path}/:id`, (req) => {
      const contextId = participant(req)["@id"];
      const id = req.params.id;
      const key = ctxKey(contextId, id);
      if (!ctx.store.get(table, key)) throw notFound(`Object of type ${type} with ID=${id} was not found`);
      const named = namedBy(contextId, id);
      if (named) throw conflict(named);
      ctx.store.delete(table, key);
      return { status: 204 };
    });
  /** a new record of `table` in the participant's context, stamped now: the IdResponse */
  const create = (p: ParticipantRecord, table: Collection, id: string, type: string, fields: Json) => {
    const rec = { "@id": id, "@type": type, ...fields, createdAt: ctx.now(), participantContextId: p["@id"] };
    ctx.store.put(table, ctxKey(p["@id"], id), p["@id"], rec);
    return { body: idResponse(id, rec.createdAt) };
  };
  /** the participant's negotiation or transfer process named in the path (404 otherwise) */
  const own =
    <T extends NegotiationRecord | TransferRecord>(table: Collection, what: string) =>
    (req: LocalRequest): T => {
      const p = participant(req);
      const r = ctx.store.get<T>(table, req.params.id);
      if (!r || r.participantContextId !== p["@id"]) throw notFound(`${what} ${req.params.id} not found`);
      return r;
    };

  router.add("GET", P, (req) => {
    const all = ctx.store.list<ParticipantRecord>("participants");
    const offset = Number(req.query.get("offset") ?? 0) || 0;
    const limit = Number(req.query.get("limit") ?? 50) || 50;
    return { body: all.slice(offset, offset + limit).map(withContext) };
  });
  router.add("POST", P, (req) => {
    const body = objectBody(req);
    const id = idOf(body);
    if (ctx.store.get("participants", id)) throw conflict(`Participant context ${id} already exists`);
    const properties = propertiesOf(body);
    const now = ctx.now();
    const rec: ParticipantRecord = {
      "@id": id,
      "@type": "ParticipantContext",
      identity: typeof body.identity === "string" ? body.identity : id,
      state: body.state === "CREATED" ? "CREATED" : "ACTIVATED",
      properties: properties ?? {},
      createdAt: now,
      stateTimestamp: now,
    };
    ctx.store.put("participants", id, id, rec);
    return { body: idResponse(id, now) };
  });
  router.add("GET", C, (req) => ({ body: withContext(participant(req)) }));
  router.add("PUT", C, (req) => {
    const p = participant(req);
    const body = objectBody(req);
    const properties = propertiesOf(body);
    ctx.store.put("participants", p["@id"], p["@id"], {
      ...p,
      identity: typeof body.identity === "string" && body.identity ? body.identity : p.identity,
      properties: properties ?? p.properties,
    });
    return { status: 204 };
  });

  router.add("POST", `${C}/assets`, (req) => {
    const p = participant(req);
    const body = managementBody(req);
    const id = idOf(body);
    const dataAddress = body.dataAddress as Json | undefined;
    if (!dataAddress || typeof dataAddress !== "object" || typeof dataAddress.type !== "string") {
      throw badRequest("dataAddress with a type is required", "dataAddress");
    }
    if (ctx.store.get("assets", ctxKey(p["@id"], id))) throw conflict(`Asset ${id} already exists`);
    return create(p, "assets", id, "Asset", {
      properties: { ...((body.properties as Json | undefined) ?? {}), id },
      privateProperties: (body.privateProperties as Json | undefined) ?? {},
      dataAddress,
    } satisfies Partial<AssetRecord>);
  });
  listRoute("assets", "assets");
  getRoute("assets", "assets", "Asset");
  deleteRoute("assets", "assets", "Asset", (contextId, id) =>
    ctx.store
      .list<AgreementRecord>("agreements")
      .some((a) => a.providerContextId === contextId && a.assetId === id)
      ? `Asset ${id} cannot be deleted as it is referenced by at least one contract agreement`
      : undefined,
  );

  router.add("POST", `${C}/policydefinitions`, (req) => {
    const p = participant(req);
    const body = managementBody(req);
    const policy = policyOf(body);
    const id = idOf(body);
    if (ctx.store.get("policies", ctxKey(p["@id"], id)))
      throw conflict(`Policy definition ${id} already exists`);
    return create(p, "policies", id, "PolicyDefinition", { policy });
  });
  listRoute("policydefinitions", "policies");
  getRoute("policydefinitions", "policies", "Policy definition");
  // PUT as EDC's management API answers it: 204; 404 for an unknown id
  router.add("PUT", `${C}/policydefinitions/:id`, (req) => {
    const p = participant(req);
    const policy = policyOf(managementBody(req));
    const key = ctxKey(p["@id"], req.params.id);
    const d = ctx.store.get<PolicyDefinitionRecord>("policies", key);
    if (!d) throw notFound(`Object of type PolicyDefinition with ID=${req.params.id} was not found`);
    ctx.store.put("policies", key, p["@id"], { ...d, policy });
    return { status: 204 };
  });
  // a policy that a contract definition names is not deleted
  deleteRoute("policydefinitions", "policies", "PolicyDefinition", (contextId, id) => {
    const naming = ctx.store
      .list<ContractDefinitionRecord>("contractdefinitions", contextId)
      .find((c) => c.accessPolicyId === id || c.contractPolicyId === id);
    return naming
      ? `PolicyDefinition ${id} cannot be deleted as it is referenced by ContractDefinition ${naming["@id"]}`
      : undefined;
  });
  router.add("POST", `${C}/contractdefinitions`, (req) => {
    const p = participant(req);
    const body = managementBody(req);
    for (const f of ["accessPolicyId", "contractPolicyId"] as const) {
      if (typeof body[f] !== "string" || !body[f]) throw badRequest(`${f} is required`, f);
    }
    const id = idOf(body);
    if (ctx.store.get("contractdefinitions", ctxKey(p["@id"], id)))
      throw conflict(`Contract Definition with ID ${id} already exists`);
    return create(p, "contractdefinitions", id, "ContractDefinition", {
      accessPolicyId: String(body.accessPolicyId),
      contractPolicyId: String(body.contractPolicyId),
      assetsSelector: Array.isArray(body.assetsSelector) ? (body.assetsSelector as Criterion[]) : [],
    } satisfies Partial<ContractDefinitionRecord>);
  });
  listRoute("contractdefinitions", "contractdefinitions");
  getRoute("contractdefinitions", "contractdefinitions", "Contract definition");
  deleteRoute("contractdefinitions", "contractdefinitions", "ContractDefinition");

  router.add("POST", `${C}/catalog/request`, async (req) => {
    active(req);
    const body = managementBody(req);
    // as EDC: a catalogue request goes to an address (its validator's refusal); the DID alone finds nobody
    const address = typeof body.counterPartyAddress === "string" ? body.counterPartyAddress.trim() : "";
    if (!address) throw badRequest(COUNTER_PARTY_ADDRESS_MISSING, `${EDC_NAMESPACE}counterPartyAddress`);
    const provider = contextOfDspAddress(ctx, address);
    if (!provider) throw notFound(`No participant of this dataspace is known as ${address}`);
    // the provider is a context of this runtime: its DSP answer is asked in-process (catalog.ts)
    try {
      return { body: catalogOfProvider(ctx, provider["@id"], provider) };
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      throw new HttpError(502, `The provider's DSP endpoint answered HTTP ${e.status}`, "ProviderError");
    }
  });

  const processes = [
    [
      "contractnegotiations",
      "negotiations",
      "Contract negotiation",
      requestNegotiation,
      terminateNegotiation,
    ],
    ["transferprocesses", "transfers", "Transfer process", requestTransfer, terminateTransfer],
  ] as const;
  for (const [path, table, what, request, terminate] of processes) {
    const ownProcess = own(table, what);
    router.add("POST", `${C}/${path}`, (req) => {
      const r = request(ctx, active(req), managementBody(req));
      return { body: idResponse(r["@id"], r.createdAt) };
    });
    listRoute(path, table);
    router.add("GET", `${C}/${path}/:id`, (req) => ({ body: withContext(ownProcess(req)) }));
    router.add("GET", `${C}/${path}/:id/state`, (req) => ({
      body: { "@context": COMPACT_CONTEXT, state: ownProcess(req).state },
    }));
    router.add("POST", `${C}/${path}/:id/terminate`, (req) => {
      terminate(ctx, participant(req)["@id"], req.params.id, managementBody(req));
      return { status: 204 };
    });
  }
  const ownNegotiation = own<NegotiationRecord>("negotiations", "Contract negotiation");
  router.add("GET", `${C}/contractnegotiations/:id/agreement`, (req) => {
    const n = ownNegotiation(req);
    const a = n.contractAgreementId
      ? ctx.store.get<AgreementRecord>("agreements", n.contractAgreementId)
      : undefined;
    if (!a) throw notFound(`Contract negotiation ${n["@id"]} has no agreement`);
    return { body: withContext(a) };
  });
  router.add("GET", `${C}/edrs/:id/dataaddress`, async (req) => ({
    body: withContext(await endpointDataReference(ctx, participant(req)["@id"], req.params.id)),
  }));
}
