import { randomUUID } from "node:crypto";
import { isObject, slugOfDisplayName } from "../dataspace-protocol";
import type { LocalContext } from "./context";
import { badRequest, notFound, objectBody, type LocalRequest, type Router } from "./http";
import type {
  CellRecord,
  DataspaceProfileRecord,
  Json,
  ParticipantProfileRecord,
  ParticipantRecord,
  TenantRecord,
} from "./models";
import { issueOnboardingCredential } from "./issuer";
import { seedProviderPolicies } from "./seed";

/**
 * The tenant manager of the local dataspace (connector fabric manager shape, `/api/v1alpha1`):
 * cells, dataspace profiles, tenants and participant profiles. Creating a participant profile
 * provisions a `did:web` identity and a participant context, CREATED first and ACTIVATED after a
 * short delay, and issues the participant its EHDS participant credential.
 */

const bodyOf = (req: LocalRequest) => objectBody(req, "Invalid JSON format");

export function registerTenantManagerApi(router: Router, ctx: LocalContext): void {
  const prefix = "/tenant-manager/api/v1alpha1";
  const tenant = (id: string): TenantRecord => {
    const t = ctx.store.get<TenantRecord>("tenants", id);
    if (!t) throw notFound(`tenant ${id} not found`);
    return t;
  };

  router.add("GET", `${prefix}/cells`, () => ({ body: ctx.store.list<CellRecord>("cells") }));
  router.add("POST", `${prefix}/cells`, (req) => {
    const body = bodyOf(req);
    const cell: CellRecord = {
      id: randomUUID(),
      version: 0,
      state: typeof body.state === "string" ? body.state : "ACTIVE",
      stateTimestamp:
        typeof body.stateTimestamp === "string" ? body.stateTimestamp : new Date(ctx.now()).toISOString(),
      properties: isObject(body.properties) ? body.properties : {},
    };
    ctx.store.put("cells", cell.id, "", cell);
    return { status: 201, body: cell };
  });

  router.add("GET", `${prefix}/dataspace-profiles`, () => ({
    body: ctx.store.list<DataspaceProfileRecord>("dataspaceprofiles"),
  }));
  router.add("POST", `${prefix}/dataspace-profiles`, (req) => {
    const body = bodyOf(req);
    const profile: DataspaceProfileRecord = {
      id: randomUUID(),
      version: 0,
      artifacts: Array.isArray(body.artifacts) ? body.artifacts.map(String) : [],
      deployments: [],
      properties: isObject(body.properties) ? body.properties : {},
    };
    ctx.store.put("dataspaceprofiles", profile.id, "", profile);
    return { status: 201, body: profile };
  });
  router.add("GET", `${prefix}/dataspace-profiles/:id`, (req) => {
    const p = ctx.store.get<DataspaceProfileRecord>("dataspaceprofiles", req.params.id);
    if (!p) throw notFound(`dataspace profile ${req.params.id} not found`);
    return { body: p };
  });

  router.add("GET", `${prefix}/tenants`, () => ({ body: ctx.store.list<TenantRecord>("tenants") }));
  router.add("POST", `${prefix}/tenants`, (req) => {
    const body = bodyOf(req);
    const t: TenantRecord = {
      id: randomUUID(),
      version: 0,
      properties: isObject(body.properties) ? body.properties : {},
    };
    ctx.store.put("tenants", t.id, "", t);
    return { status: 201, body: t };
  });
  router.add("GET", `${prefix}/tenants/:id`, (req) => ({ body: tenant(req.params.id) }));
  router.add("PATCH", `${prefix}/tenants/:id`, (req) => {
    const t = tenant(req.params.id);
    const body = bodyOf(req);
    const removed = Array.isArray(body.removed) ? body.removed.map(String) : [];
    const properties = { ...t.properties, ...(isObject(body.properties) ? body.properties : {}) };
    for (const k of removed) delete properties[k];
    const next = { ...t, version: t.version + 1, properties };
    ctx.store.put("tenants", t.id, "", next);
    return { body: next };
  });
  router.add("DELETE", `${prefix}/tenants/:id`, (req) => {
    const t = tenant(req.params.id);
    ctx.store.delete("tenants", t.id);
    return { body: t };
  });

  router.add("GET", `${prefix}/tenants/:id/participant-profiles`, (req) => ({
    body: ctx.store.list<ParticipantProfileRecord>("participantprofiles", tenant(req.params.id).id),
  }));
  router.add("POST", `${prefix}/tenants/:id/participant-profiles`, (req) => {
    const t = tenant(req.params.id);
    const body = bodyOf(req);
    if (typeof body.identifier !== "string" || !body.identifier)
      throw badRequest("Bad request: identifier is required");
    const cell =
      typeof body.cellId === "string" ? ctx.store.get<CellRecord>("cells", body.cellId) : undefined;
    if (!cell) throw badRequest("Bad request: cellId does not name a cell");
    const profileIds = Array.isArray(body.dataspaceProfileIds) ? body.dataspaceProfileIds.map(String) : [];
    if (profileIds.length === 0 || profileIds.some((id) => !ctx.store.get("dataspaceprofiles", id))) {
      throw badRequest("Bad request: dataspaceProfileIds must name existing dataspace profiles");
    }
    const profile = provisionParticipant(ctx, t, {
      identifier: body.identifier,
      cell,
      dataspaceProfileIds: profileIds,
      properties: isObject(body.properties) ? body.properties : {},
    });
    return { status: 201, body: profile };
  });
}

/**
 * Provisions a participant for a tenant: a `did:web` DID, a participant context in state CREATED
 * and, after a delay, ACTIVATED with its agents active and an EHDS participant credential.
 */
export function provisionParticipant(
  ctx: LocalContext,
  tenant: TenantRecord,
  input: {
    identifier: string;
    cell: CellRecord;
    dataspaceProfileIds: string[];
    properties: Json;
    id?: string;
    did?: string;
  },
): ParticipantProfileRecord {
  const id = input.id ?? randomUUID();
  const slug = slugOfDisplayName(input.identifier) || id.slice(0, 8);
  const did = input.did ?? `did:web:${ctx.didHost}:${slug}`;
  const now = ctx.now();
  const vpa = (type: string, state: string) => ({
    id: `${id}-${type}`,
    version: 0,
    type,
    state,
    stateTimestamp: new Date(now).toISOString(),
    cell: input.cell,
  });
  const pending: ParticipantProfileRecord = {
    id,
    version: 0,
    identifier: input.identifier,
    tenantId: tenant.id,
    vpas: [vpa("cfm.connector", "PENDING"), vpa("cfm.credentialservice", "PENDING")],
    properties: {
      ...input.properties,
      did,
      participantContextId: id,
      dataspaceProfileIds: input.dataspaceProfileIds,
    },
    error: false,
  };
  const context: ParticipantRecord = {
    "@id": id,
    "@type": "ParticipantContext",
    identity: did,
    state: "CREATED",
    properties: { tenantId: tenant.id },
    createdAt: now,
    stateTimestamp: now,
  };
  ctx.store.transaction(() => {
    ctx.store.put("participantprofiles", id, tenant.id, pending);
    if (!ctx.store.get("participants", id)) ctx.store.put("participants", id, id, context);
  });
  const activate = async () => {
    const current = ctx.store.get<ParticipantRecord>("participants", id);
    if (!current) return;
    ctx.store.transaction(() => {
      ctx.store.put("participants", id, id, { ...current, state: "ACTIVATED", stateTimestamp: ctx.now() });
      seedProviderPolicies(ctx, id);
      ctx.store.put("participantprofiles", id, tenant.id, {
        ...pending,
        version: 1,
        vpas: [vpa("cfm.connector", "ACTIVE"), vpa("cfm.credentialservice", "ACTIVE")],
      });
    });
    const role =
      typeof tenant.properties.ehdsParticipantType === "string"
        ? tenant.properties.ehdsParticipantType
        : String(tenant.properties.role ?? "");
    await issueOnboardingCredential(ctx, {
      contextId: id,
      did,
      organisation: String(tenant.properties.displayName ?? input.identifier),
      role,
    });
  };
  ctx.scheduler.after(ctx.stepMs * 2, activate);
  return pending;
}

/** After a restart: activate the participant contexts still waiting for it. */
export function resumeProvisioning(ctx: LocalContext): void {
  for (const p of ctx.store.list<ParticipantRecord>("participants")) {
    if (p.state !== "CREATED") continue;
    const profile = ctx.store.get<ParticipantProfileRecord>("participantprofiles", p["@id"]);
    const tenantRec = profile ? ctx.store.get<TenantRecord>("tenants", profile.tenantId) : undefined;
    const cell = profile?.vpas[0]?.cell as CellRecord | undefined;
    if (!profile || !tenantRec || !cell) continue;
    provisionParticipant(ctx, tenantRec, {
      id: profile.id,
      did: p.identity,
      identifier: profile.identifier,
      cell,
      dataspaceProfileIds: (profile.properties.dataspaceProfileIds as string[] | undefined) ?? [],
      properties: profile.properties,
    });
  }
}
