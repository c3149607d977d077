import { z } from "zod";
import { isRole, ROLES } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { badGateway, isApiError, notFound, serviceUnavailable } from "../http/errors";
import { presentString } from "../http/handler";
import { checkId } from "../http/ids";
import { checkName } from "../http/names";
import { didOfContext } from "./assets";
import { describeUpstream, notFoundOr502, or502 } from "./failures";
import {
  findOrganisationByName,
  knownOrganisation,
  resolveDisplayName,
  resolveRole,
  slugOfDid,
  slugOfDisplayName,
  tenantFor,
  type TenantIdentity,
} from "../dataspace-protocol";
import {
  audited,
  operationDeadline,
  record,
  orNull,
  remainingDeadline,
  settle,
  type DataspaceRuntime,
} from "./runtime";
import type { ParticipantContext, VerifiableCredentialJson } from "./upstream-schemas";
import { createKeptByInputs, EVERYONE } from "../http/kept/kept";
import { invalidField, missingFields } from "../http/field-errors";

/** The participant registry (spec section 4, Participants). */

export const PARTICIPANT_FIELDS_REQUIRED = "displayName and role are required";
const NO_TENANT_MANAGER = "No tenant manager is configured (TENANT_MANAGER_URL)";
const UPDATE_FAILED = "Failed to update participant";

/** The tenants with their participants' DIDs and contexts; undefined when the tenant manager is unavailable. */
export async function tenantIdentities(
  rt: DataspaceRuntime,
  signal?: AbortSignal | number,
): Promise<TenantIdentity[] | undefined> {
  return identitiesOf(await tenantInputs(rt, signal));
}

/**
 * The tenant manager's answers as they came (the read cache hands out the same frozen arrays while
 * they are valid): the tenants (null when there is no tenant manager or the list failed) and each
 * tenant's participant profiles (null when that lookup failed). `signal` bounds both stages;
 * `startedAt` instead (the lists' way) arms a deadline only for the second stage, and only when the
 * first went upstream (see listParticipants).
 */
async function tenantInputs(rt: DataspaceRuntime, signal?: AbortSignal | number) {
  const tm = rt.tenantManager;
  if (!tm) return { tenants: null, profiles: [] };
  const tenants = await orNull(tm.listTenants(typeof signal === "number" ? undefined : signal));
  if (!tenants) return { tenants: null, profiles: [] };
  if (typeof signal === "number") signal = remainingDeadline(rt, signal);
  const profiles = await Promise.all(tenants.map((t) => orNull(tm.listParticipantProfiles(t.id, signal))));
  return { tenants, profiles };
}
type TenantInputs = Awaited<ReturnType<typeof tenantInputs>>;

function identitiesOf({ tenants, profiles }: TenantInputs): TenantIdentity[] | undefined {
  if (!tenants) return undefined;
  return tenants.map((t, i) => {
    const list = profiles[i] ?? [];
    const dids = list
      .map((p) =>
        typeof p.properties?.did === "string"
          ? p.properties.did
          : p.identifier.startsWith("did:")
            ? p.identifier
            : undefined,
      )
      .filter((d): d is string => !!d);
    const contextIds = list.flatMap((p) => [
      p.id,
      ...(typeof p.properties?.participantContextId === "string" ? [p.properties.participantContextId] : []),
    ]);
    const name = t.properties?.displayName;
    return {
      tenantId: t.id,
      displayName: typeof name === "string" && name ? name : undefined,
      did: dids[0],
      contextIds,
    };
  });
}

export function describeContext(ctx: ParticipantContext, tenants: readonly TenantIdentity[] | undefined) {
  const did = didOfContext(ctx);
  const slug = did ? slugOfDid(did) : "";
  const key = { id: ctx["@id"], did, slug };
  return {
    ...ctx,
    participantId: ctx["@id"],
    displayName: resolveDisplayName(key, tenants),
    role: resolveRole(key),
    slug,
    identity: did,
  };
}

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptParticipants = /* @__PURE__ */ createKeptByInputs<Record<string, unknown>[]>();

/**
 * ACTIVATED participant contexts with display name, role, slug and identity. Connector failure
 * or no ACTIVATED context: the demonstration list; neither: 502. The tenant manager is asked in
 * parallel and may fail. Kept, frozen (read it only), per set of upstream answers (server/http/kept
 * `createKeptByInputs`): the context list, the tenants and each tenant's profiles as the read cache
 * hands them out; a 502 is never kept.
 */
export async function listParticipants(rt: DataspaceRuntime): Promise<Record<string, unknown>[]> {
  const inputs = await participantInputs(rt);
  const { tenants, profiles } = inputs.tenants;
  return keptParticipants(EVERYONE, [inputs.contexts, rt, rt.demoRecords, tenants, ...profiles], () =>
    participantsOf(rt, inputs),
  );
}

/**
 * What the list is made of: the context list as it came (null when it failed) and the tenant manager's
 * answers. No deadline armed per request for the first stage (see remainingDeadline).
 */
async function participantInputs(rt: DataspaceRuntime) {
  const [contexts, tenants] = await Promise.all([
    orNull(rt.connector.listParticipantContexts()),
    tenantInputs(rt, Date.now()),
  ]);
  return { contexts: contexts as readonly ParticipantContext[] | null, tenants };
}

function participantsOf(
  rt: DataspaceRuntime,
  inputs: Awaited<ReturnType<typeof participantInputs>>,
): Record<string, unknown>[] {
  const active = inputs.contexts ? inputs.contexts.filter((c) => c.state === "ACTIVATED") : [];
  if (active.length > 0) {
    const tenants = identitiesOf(inputs.tenants);
    return active.map((c) => describeContext(c, tenants));
  }
  const demo = rt.demoRecords ? rt.demo.participants() : [];
  if (demo.length > 0) return demo;
  throw badGateway("Failed to list participants");
}

/** A participant context in any state (CREATED while provisioning, then ACTIVATED): for views that watch onboarding. */
export interface ParticipantStatus {
  participantId: string;
  /** the context's state; a record without one counts as ACTIVATED, as for GET /api/assets */
  state: string;
  /** the provisioned DID ("" until the connector knows it) */
  did: string;
  displayName: string;
  role: string;
  /** milliseconds since epoch of the last state change, when the connector tells it */
  stateTimestamp?: number;
}

/** One participant context with its state, whatever the state: 404 when the connector does not know it. */
export async function participantStatus(rt: DataspaceRuntime, id: string): Promise<ParticipantStatus> {
  // polled while a participant is provisioned: no deadline armed per request (see remainingDeadline)
  const [ctx, tenants] = await Promise.all([
    settle(rt.connector.getParticipantContext(id)),
    tenantIdentities(rt, Date.now()),
  ]);
  if (!ctx.ok) throw notFoundOr502(ctx.error, "Participant not found", "Failed to read participant");
  const listed = describeContext(ctx.value, tenants);
  const ts = (ctx.value as Record<string, unknown>).stateTimestamp;
  return {
    participantId: listed.participantId,
    state: ctx.value.state ?? "ACTIVATED",
    did: listed.identity,
    displayName: listed.displayName,
    role: listed.role,
    ...(typeof ts === "number" ? { stateTimestamp: ts } : {}),
  };
}

export function parseOnboardingInput(body: Record<string, unknown>) {
  const displayName = presentString(body.displayName);
  const role = presentString(body.role);
  if (!displayName || !role) throw missingFields({ displayName, role }, PARTICIPANT_FIELDS_REQUIRED);
  // stored and shown to others: names of a plain syntax, a role of the role list (spec: Participant)
  checkName(displayName, "displayName");
  if (!isRole(role)) throw invalidField("role", `role must be one of ${ROLES.join(", ")}`);
  const organization = presentString(body.organization);
  if (organization !== undefined) checkName(organization, "organization");
  const ehdsParticipantType = presentString(body.ehdsParticipantType);
  if (ehdsParticipantType !== undefined) checkId(ehdsParticipantType, "ehdsParticipantType");
  return {
    displayName,
    role,
    organization: organization ?? displayName,
    ehdsParticipantType: ehdsParticipantType ?? role,
  };
}

export const onboardingResult = z.object({
  tenantId: z.string(),
  participantId: z.string(),
  displayName: z.string(),
  role: z.string(),
  status: z.literal("provisioning"),
});
/**
 * Onboards a participant through the tenant manager: first cell, first dataspace profile (503
 * when either is missing), a tenant with the participant's properties, then a participant
 * profile in that cell for that profile, which provisions the DID, keys and participant context.
 */
export async function onboardParticipant(
  rt: DataspaceRuntime,
  input: ReturnType<typeof parseOnboardingInput>,
  actor = "system",
): Promise<z.infer<typeof onboardingResult>> {
  const tm = rt.tenantManager;
  if (!tm) throw serviceUnavailable(NO_TENANT_MANAGER);
  const target = input.displayName;
  let tenantId: string;
  let participantId: string;
  try {
    const [cells, profiles] = await Promise.all([tm.listCells(), tm.listDataspaceProfiles()]);
    const cell = cells[0];
    if (!cell) throw serviceUnavailable("No tenant-manager cell is available to host the participant");
    const profile = profiles[0];
    if (!profile) throw serviceUnavailable("No dataspace profile is available for the participant");
    const tenant = await tm.createTenant({
      displayName: input.displayName,
      organization: input.organization,
      role: input.role,
      ehdsParticipantType: input.ehdsParticipantType,
    });
    const participant = await tm.createParticipantProfile(tenant.id, {
      identifier: slugOfDisplayName(input.displayName) || tenant.id,
      cellId: cell.id,
      dataspaceProfileIds: [profile.id],
      properties: { displayName: input.displayName, role: input.role },
    });
    tenantId = tenant.id;
    participantId = participant.id;
  } catch (e) {
    if (isApiError(e)) throw e;
    await record(rt, { action: "participant.create", actor, target, outcome: "failure" });
    throw badGateway("Failed to create participant");
  }
  await record(rt, {
    action: "participant.create",
    actor,
    target: `${target} (tenant ${tenantId})`,
    outcome: "success",
  });
  return {
    tenantId,
    participantId,
    displayName: input.displayName,
    role: input.role,
    status: "provisioning",
  };
}

/** the caller's organisation, or the person without one (`user:<name>`); PATCH /api/participants/:id's answer */
export const participantSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  organization: z.string().optional(),
  role: z.string().optional(),
  ehdsParticipantType: z.string().optional(),
  did: z.string().optional(),
});
export type Participant = z.infer<typeof participantSchema>;

/** PATCH's body as its declaration (contract.ts) checked it: the names given, blank ones left out */
export function parseParticipantUpdate(body: Record<string, unknown>) {
  const displayName = presentString(body.displayName);
  const organization = presentString(body.organization);
  return { ...(displayName ? { displayName } : {}), ...(organization ? { organization } : {}) };
}

/** Renames a participant: the tenant manager holds its display name and organisation. */
export async function updateParticipant(
  rt: DataspaceRuntime,
  id: string,
  update: ReturnType<typeof parseParticipantUpdate>,
  actor = "system",
): Promise<Participant> {
  const tm = rt.tenantManager;
  if (!tm) throw serviceUnavailable(NO_TENANT_MANAGER);
  const deadline = operationDeadline(rt);
  const [ctx, tenants] = await Promise.all([
    orNull(rt.connector.getParticipantContext(id, deadline)),
    tenantIdentities(rt, deadline),
  ]);
  if (!tenants) throw badGateway(UPDATE_FAILED, "tenant manager unavailable");
  const did = ctx ? didOfContext(ctx) : "";
  const tenant = tenantFor({ id, did, slug: did ? slugOfDid(did) : "" }, tenants);
  if (!tenant) throw notFound("Participant not found");
  const updated = await audited(
    rt,
    { action: "participant.update", actor, target: id },
    () => tm.updateTenant(tenant.tenantId, { ...update }),
    (e) => badGateway(UPDATE_FAILED, describeUpstream(e)),
    () => `tenant ${tenant.tenantId}`,
  );
  const p = updated.properties ?? {};
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    id,
    displayName: str(p.displayName) ?? update.displayName ?? tenant.displayName ?? id,
    organization: str(p.organization),
    role: str(p.role) ?? (did ? resolveRole({ did, slug: slugOfDid(did) }) : undefined),
    ehdsParticipantType: str(p.ehdsParticipantType),
    did: did || tenant.did,
  };
}

/** The caller as a Participant: their organisation's participant context when they belong to one. */
export async function participantForUser(rt: DataspaceRuntime, user: SessionUser): Promise<Participant> {
  const org =
    (user.participantDid ? knownOrganisation(user.participantDid, undefined) : undefined) ??
    findOrganisationByName(user.organisation);
  const did = user.participantDid ?? org?.did;
  const role = user.roles[0];
  if (!did) {
    return { id: `user:${user.username}`, displayName: user.name, organization: user.organisation, role };
  }
  // one upstream call, bounded by its own time-out: no deadline armed per request (decision 0042)
  const contexts = await orNull(rt.connector.listParticipantContexts());
  const ctx = contexts?.find((c) => didOfContext(c) === did);
  // the connector listed its contexts and none is the organisation's: it acts in none (a runtime-scoped
  // connector is one participant, maybe another organisation; issue 34). The connector unreachable: the
  // organisation's own slug, its demonstration records' participant
  const none = contexts && !ctx;
  return {
    id: none ? `user:${user.username}` : (ctx?.["@id"] ?? org?.slug ?? slugOfDid(did)),
    displayName: org?.displayName ?? user.organisation,
    organization: user.organisation,
    role,
    ehdsParticipantType: org?.role,
    did,
  };
}

/** The spec's Credential: a W3C verifiable credential as the hub lists it; its subject and proof are the issuer's (open) */
export const credentialSchema = z.object({
  id: z.string(),
  type: z.array(z.string()),
  issuer: z.string(),
  credentialSubject: z.record(z.string(), z.unknown()).describe("the claims, as the issuer wrote them"),
  issuanceDate: z.string(),
  proof: z.record(z.string(), z.unknown()).describe("the issuer's proof, as it wrote it"),
  status: z.string().optional().describe("the identity hub's state of the credential"),
  format: z.string().optional(),
});
export type Credential = z.infer<typeof credentialSchema>;

export function toCredential(
  id: string,
  vc: VerifiableCredentialJson,
  extra: Pick<Credential, "status" | "format"> = {},
): Credential {
  const subject = Array.isArray(vc.credentialSubject)
    ? (vc.credentialSubject[0] ?? {})
    : vc.credentialSubject;
  return {
    ...extra,
    id: vc.id ?? id,
    type: Array.isArray(vc.type) ? vc.type : [vc.type],
    issuer: typeof vc.issuer === "string" ? vc.issuer : vc.issuer.id,
    credentialSubject: subject,
    issuanceDate: vc.issuanceDate ?? vc.validFrom ?? "",
    proof: vc.proof ?? {},
  };
}

// the spec's credentials per upstream answer (the read cache hands out the same frozen array while it
// is valid): one kept list each (deepFrozen: the edge sends it from bytes encoded and gzipped once)
const keptCredentials = /* @__PURE__ */ createKeptByInputs<readonly Credential[]>();
const credentialsOf = <T extends object>(upstream: readonly T[], map: (c: T) => Credential) =>
  keptCredentials(EVERYONE, [upstream], () => upstream.map(map));

/**
 * The credentials a participant holds (identity hub), or those issued to it (issuer service): the
 * same frozen list while the upstream answer is the same (read only).
 */
export async function participantCredentials(
  rt: DataspaceRuntime,
  id: string,
): Promise<readonly Credential[]> {
  // no deadline armed per request: the first read has its own time-out, the second what is left of it
  const startedAt = Date.now();
  // an identity hub lists none for a participant it does not have (200 [], as IdentityHub 0.15.1)
  const { identityHub } = rt;
  if (identityHub)
    return or502(async () => {
      const held = await identityHub.listCredentials(id);
      return credentialsOf(held, (h) =>
        toCredential(h.id, h.verifiableCredential.credential, {
          status: h.state,
          format: h.verifiableCredential.format,
        }),
      );
    }, "Failed to fetch credentials");
  const issuer = rt.issuer;
  if (issuer)
    return or502(async () => {
      const ctx = await orNull(rt.connector.getParticipantContext(id));
      const holder = (ctx && didOfContext(ctx)) || id;
      const issued = await issuer.listCredentials(holder, remainingDeadline(rt, startedAt));
      return credentialsOf(issued, (c) => toCredential(c.id, c.credential, { format: c.format }));
    }, "Failed to fetch credentials");
  throw serviceUnavailable("No identity hub or issuer service is configured (IDENTITY_HUB_URL, ISSUER_URL)");
}
