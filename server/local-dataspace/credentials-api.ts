import { randomUUID } from "node:crypto";
import { decodeContextId, knownOrganisation, VC_STATUS } from "../dataspace-protocol";
import type { LocalContext } from "./context";
import { badRequest, conflict, notFound, objectBody, type LocalRequest, type Router } from "./http";
import { definitionOfType, issueCredential, statusListCredential } from "./issuer";
import type {
  CredentialDefinitionRecord,
  CredentialRecord,
  CredentialRequestRecord,
  Json,
  ParticipantProfileRecord,
  ParticipantRecord,
  TenantRecord,
} from "./models";
import { queryRecords as query } from "./query";

const VC_STATUS_CODE = Object.fromEntries(
  Object.entries(VC_STATUS).map(([code, name]) => [name, Number(code)]),
);

/**
 * The issuer service admin API (`/issuer/v1alpha/participants/{issuer}/...`) and the identity
 * hub's identity API (`/identity/v1alpha/participants/{holder}/...`) of the local dataspace.
 * Context ids in these paths are base64url-encoded, as in the EDC identity hub.
 */

/**
 * A record as EDC IdentityHub 0.15.1 keeps it (VerifiableCredentialResource), so that a QuerySpec
 * sees its paths (`id`, `holderId`, `verifiableCredential.credential.id`, ...), its state as a VcStatus
 * code. The issuer's record has its own id; the holder's has the credential's id (CredentialWriterImpl).
 */
const resource = (c: CredentialRecord, id = c.id) => ({
  id,
  participantContextId: c.participantContextId,
  state: VC_STATUS_CODE[c.state],
  issuerId: c.issuerId,
  holderId: c.holderId,
  timestamp: c.timestamp,
  verifiableCredential: { format: c.format, rawVc: c.rawVc, credential: c.credential },
});
const issuedDto = (r: ReturnType<typeof resource>) => ({
  id: r.id,
  participantContextId: r.participantContextId,
  format: r.verifiableCredential.format,
  credential: r.verifiableCredential.credential,
});
const heldResource = (c: CredentialRecord) => ({
  ...resource(c, String(c.credential.id)),
  participantContextId: c.holderContextId,
});

/** Who a holder is, for the claims of its credentials: its tenant, else the built-in table. */
function holderInfo(ctx: LocalContext, p: ParticipantRecord): { organisation: string; role: string } {
  const profile = ctx.store.get<ParticipantProfileRecord>("participantprofiles", p["@id"]);
  const tenant = profile ? ctx.store.get<TenantRecord>("tenants", profile.tenantId) : undefined;
  const known = knownOrganisation(p.identity, undefined);
  const name = tenant?.properties.displayName;
  const role = tenant?.properties.ehdsParticipantType ?? tenant?.properties.role;
  return {
    organisation: typeof name === "string" ? name : (known?.displayName ?? p["@id"]),
    role: typeof role === "string" ? role : (known?.role ?? ""),
  };
}

export function registerIssuerApi(router: Router, ctx: LocalContext): void {
  const prefix = "/issuer/v1alpha/participants/:issuer";
  const issuerOf = (req: LocalRequest) => {
    if (decodeContextId(req.params.issuer) !== ctx.issuer.contextId)
      throw notFound(`No issuer participant context ${req.params.issuer}`);
  };
  const credential = (req: LocalRequest): CredentialRecord => {
    issuerOf(req);
    const c = ctx.store.get<CredentialRecord>("credentials", req.params.id);
    if (!c) throw notFound(`Credential ${req.params.id} not found`);
    return c;
  };

  router.add("POST", `${prefix}/credentialdefinitions`, (req) => {
    issuerOf(req);
    const body = objectBody(req);
    if (typeof body.credentialType !== "string" || !body.credentialType)
      throw badRequest("credentialType is required", "credentialType");
    const id = typeof body.id === "string" && body.id ? body.id : randomUUID();
    if (ctx.store.get("credentialdefinitions", id) || definitionOfType(ctx, body.credentialType)) {
      throw conflict(`A credential definition for ${body.credentialType} already exists`);
    }
    const def: CredentialDefinitionRecord = {
      id,
      credentialType: body.credentialType,
      jsonSchema: typeof body.jsonSchema === "string" ? body.jsonSchema : "{}",
      jsonSchemaUrl: typeof body.jsonSchemaUrl === "string" ? body.jsonSchemaUrl : "",
      validity: typeof body.validity === "number" && body.validity > 0 ? body.validity : 31_536_000,
      format: typeof body.format === "string" ? body.format : "VC1_0_JWT",
      mappings: Array.isArray(body.mappings) ? (body.mappings as Json[]) : [],
      rules: Array.isArray(body.rules) ? (body.rules as Json[]) : [],
      participantContextId: ctx.issuer.contextId,
    };
    ctx.store.put("credentialdefinitions", id, ctx.issuer.contextId, def);
    return { status: 201, body: { id } };
  });
  router.add("POST", `${prefix}/credentialdefinitions/query`, (req) => {
    issuerOf(req);
    return { body: query(ctx.store.list<CredentialDefinitionRecord>("credentialdefinitions"), req.body) };
  });
  router.add("GET", `${prefix}/credentialdefinitions/:id`, (req) => {
    issuerOf(req);
    const d = ctx.store.get<CredentialDefinitionRecord>("credentialdefinitions", req.params.id);
    if (!d) throw notFound(`Credential definition ${req.params.id} not found`);
    return { body: d };
  });
  router.add("POST", `${prefix}/credentials/query`, (req) => {
    issuerOf(req);
    const records = ctx.store.list<CredentialRecord>("credentials").map((c) => resource(c));
    return { body: query(records, req.body).map(issuedDto) };
  });
  router.add("POST", `${prefix}/credentials/:id/revoke`, (req) => {
    const c = credential(req);
    ctx.store.put("credentials", c.id, c.holderContextId, { ...c, state: "REVOKED" });
    return { status: 204 };
  });
  router.add("GET", `${prefix}/credentials/:id/status`, (req) => {
    const c = credential(req);
    // CredentialStatusResponse: the status list's purpose when its bit is set, else null
    return {
      body: { credentialId: c.id, status: c.state === "REVOKED" ? "revocation" : null, reason: null },
    };
  });
  router.add(
    "GET",
    "/issuer/status-list/revocation",
    async () => ({ body: await statusListCredential(ctx) }),
    { authenticated: false },
  );
}

export function registerIdentityHubApi(router: Router, ctx: LocalContext): void {
  const prefix = "/identity/v1alpha/participants/:holder";
  const holderOf = (req: LocalRequest): ParticipantRecord => {
    const id = decodeContextId(req.params.holder);
    const p = id ? ctx.store.get<ParticipantRecord>("participants", id) : undefined;
    if (!p) throw notFound(`No participant context ${req.params.holder} (context ids are base64url-encoded)`);
    return p;
  };

  // a context it does not have holds none (200 []): IdentityHub lists the credentials its caller may see there
  router.add("GET", `${prefix}/credentials`, (req) => {
    const id = decodeContextId(req.params.holder);
    if (!id) throw badRequest(`${req.params.holder} is not a base64url-encoded participant context id`);
    return { body: ctx.store.list<CredentialRecord>("credentials", id).map(heldResource) };
  });

  router.add("POST", `${prefix}/credentials/request`, (req) => {
    const holder = holderOf(req);
    const body = objectBody(req);
    if (body.issuerDid !== ctx.issuer.did)
      throw badRequest(
        `unknown issuer ${String(body.issuerDid)}: this dataspace's issuer is ${ctx.issuer.did}`,
        "issuerDid",
      );
    const holderPid = typeof body.holderPid === "string" && body.holderPid ? body.holderPid : randomUUID();
    const wanted = Array.isArray(body.credentials) ? (body.credentials as Json[]) : [];
    if (wanted.length === 0) throw badRequest("credentials must name at least one credential", "credentials");
    const definitions = wanted.map((c) =>
      definitionOfType(ctx, String(c.id ?? c.type ?? c.credentialType ?? "")),
    );
    if (definitions.some((d) => !d))
      throw badRequest("credentials names a credential the issuer does not offer", "credentials");
    const request: CredentialRequestRecord = {
      holderPid,
      issuerPid: randomUUID(),
      issuerDid: ctx.issuer.did,
      holderContextId: holder["@id"],
      status: "REQUESTED",
      credentials: wanted,
      timestamp: ctx.now(),
    };
    const save = (r: CredentialRequestRecord) =>
      ctx.store.put("credentialrequests", holderPid, holder["@id"], r);
    save(request);
    ctx.scheduler.after(ctx.stepMs, async () => {
      try {
        if (holder.state !== "ACTIVATED")
          throw new Error("the holder's participant context is not ACTIVATED");
        const info = holderInfo(ctx, holder);
        for (const def of definitions)
          await issueCredential(ctx, def!, { contextId: holder["@id"], did: holder.identity, ...info });
        if (!ctx.scheduler.closed) save({ ...request, status: "ISSUED", timestamp: ctx.now() });
      } catch (e) {
        const errorDetail = e instanceof Error ? e.message : String(e);
        if (!ctx.scheduler.closed) save({ ...request, status: "ERROR", errorDetail });
      }
    });
    return {
      status: 201,
      body: { holderPid, issuerPid: request.issuerPid, status: request.status },
      headers: { Location: `${req.path}/${holderPid}` },
    };
  });

  router.add("GET", `${prefix}/credentials/request/:pid`, (req) => {
    const holder = holderOf(req);
    const r = ctx.store.get<CredentialRequestRecord>("credentialrequests", req.params.pid);
    if (!r || r.holderContextId !== holder["@id"]) throw notFound(`No credential request ${req.params.pid}`);
    return { body: r };
  });
}
