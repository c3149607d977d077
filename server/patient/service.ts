import type { z } from "zod";
import { organisationSlugOf, type SessionUser } from "../auth/user";
import { findAll, linked, type GraphNode, type PropertyValue, type GraphStore } from "../graph";
import { createKept, deepFrozen, EVERYONE } from "../http/kept";
import { ApiError, badRequest, forbidden, notFound } from "../http/errors";
import { seesIdentity, viewerOf } from "../privacy";
import { invalidField, missingFields } from "../http/field-errors";
import type { AccessLog } from "../audit/access-log";
import type { patient, profile } from "./contract";

/**
 * FHIR patient records (layer l3) and research consent. A PATIENT reaches only the record
 * linked to their account; a DATA_HOLDER the patients of their organisation; an operator all.
 */

export type Patient = z.infer<typeof patient>;
export type PatientProfile = z.infer<typeof profile>;

export { PATIENT_LIST_DEFAULT, PATIENT_LIST_MAX, PATIENT_OFFSET_MAX } from "./contract";
const PROFILE_ITEMS_MAX = 500;

const str = (v: PropertyValue | undefined) => (typeof v === "string" ? v : undefined);

export function toPatient(n: GraphNode): Patient {
  const p = n.properties;
  return {
    id: n.id,
    resourceId: str(p.resourceId),
    name: str(p.name),
    gender: str(p.gender),
    birthDate: str(p.birthDate),
    city: str(p.city),
    country: str(p.country),
  };
}

const item = (n: GraphNode) => ({ id: n.id, ...n.properties });
const edge = (id: string, source: string, target: string, type: string) => ({
  op: "createEdge" as const,
  edge: { id, source, target, type },
});
/** FHIR Observation.effectiveDateTime (older records may carry effectiveDate or date) */
const observedAt = (o: Record<string, unknown>) =>
  String(o.effectiveDateTime ?? o.effectiveDate ?? o.date ?? "");

/** whole years since `birthDate` now (null without one; NaN, encoded as null, for an unreadable one) */
export function ageOf(birthDate: string | undefined): number | null {
  const birth = birthDate ? new Date(birthDate) : null;
  return birth ? Math.floor((Date.now() - birth.getTime()) / (365.25 * 24 * 3600 * 1000)) : null;
}

/** GET /api/patient/insights: a summary of one profile (counts, dates, active conditions and medications, latest observations) */
export function insightsOf(profile: PatientProfile, age: number | null) {
  const latest = new Map<string, Record<string, unknown>>();
  for (const o of profile.observations) {
    const code = String(o.code ?? o.display ?? o.id);
    const prev = latest.get(code);
    if (!prev || observedAt(o) > observedAt(prev)) latest.set(code, o);
  }
  const dateOf = (e: Record<string, unknown>) => String(e.periodStart ?? e.date ?? e.start ?? "");
  const encounterDates = profile.encounters.map(dateOf).filter(Boolean).sort();
  const active = profile.conditions.filter((c) => (c.clinicalStatus ?? "active") === "active");
  return {
    patientId: profile.patient.id,
    age,
    counts: {
      encounters: profile.encounters.length,
      conditions: profile.conditions.length,
      observations: profile.observations.length,
      medications: profile.medications.length,
    },
    firstEncounter: encounterDates[0] ?? null,
    lastEncounter: encounterDates[encounterDates.length - 1] ?? null,
    activeConditions: active.map((c) => ({
      id: c.id,
      code: c.code,
      display: c.display,
      onsetDate: c.onsetDate,
    })),
    currentMedications: profile.medications
      .filter((m) => (m.status ?? "active") === "active")
      .map((m) => ({ id: m.id, code: m.code, display: m.display, authoredOn: m.authoredOn })),
    latestObservations: [...latest.values()].map((o) => ({
      code: o.code,
      display: o.display,
      value: o.value,
      unit: o.unit,
      effectiveDate: observedAt(o) || null,
      interpretation: o.interpretation,
    })),
  };
}

/** the reads of a record that are audited (server/audit/access-log.ts), by what was read */
export type RecordRead =
  "patient.profile.read" | "patient.insights.read" | "patient.research.read" | "patient.page.read";

/**
 * `accessLog`: where each read of an identified record by someone other than the patient goes, and
 * each refusal of a record that exists (issue 34); without it (a service built alone) nothing is logged.
 */
export function createPatientService(graph: GraphStore, accessLog?: AccessLog) {
  // a record's node read once per graph version (every request of a patient's views reads it); shared, so frozen
  const nodes = createKept<GraphNode | null>({ max: 4096 });
  const nodeOf = (id: string) =>
    nodes({ caller: EVERYONE, versions: [graph.version()], args: [id] }, async () =>
      deepFrozen(await graph.getNode(id)),
    );

  /** whether `user` sees the identity of the patient `node`: where the role table says so (server/privacy/policy.ts) */
  const seesPatient = (user: SessionUser, node: GraphNode) =>
    seesIdentity(viewerOf(user), { holder: str(node.properties.holder), patientId: node.id });

  /** a look at `node` by `user` on record, unless it is the patient's own: resolves once it is written */
  async function noteRead(
    user: SessionUser,
    node: GraphNode,
    action: RecordRead | undefined,
    outcome?: string,
  ) {
    if (!action || !accessLog || user.patientId === node.id) return;
    await accessLog.read({ actor: user.username, action, patientId: node.id, outcome });
  }

  async function load(patientId: string | null, user: SessionUser, action?: RecordRead): Promise<GraphNode> {
    if (!patientId || !patientId.trim()) throw badRequest("patientId query parameter is required");
    const isAdmin = user.roles.includes("CONNECTOR_ADMIN");
    // a patient learns nothing about other ids, not even whether they exist
    if (
      !isAdmin &&
      user.roles.includes("PATIENT") &&
      !user.roles.includes("DATA_HOLDER") &&
      user.patientId !== patientId
    ) {
      throw forbidden("Patients can only access their own record");
    }
    const node = await nodeOf(patientId);
    if (!node || node.label !== "Patient") throw notFound(`Patient ${patientId} not found`);
    if (seesPatient(user, node)) {
      await noteRead(user, node, action);
      return node;
    }
    // a refused look at a record that exists is on the patient's record too
    await noteRead(user, node, action, "refused: held by another organisation");
    throw forbidden("This patient's record is held by another organisation");
  }

  const related = (id: string, type: string) => linked(graph, id, type, "out", PROFILE_ITEMS_MAX);

  /**
   * Every consent the patient gave (a Consent node is made only by grantConsent, which writes its
   * patientId and studyId), in keyset pages: none is left out however many grants and revocations
   */
  const consentsOf = (patientId: string, where: Record<string, string> = {}) =>
    findAll(graph, "Consent", { patientId, ...where });
  /** the patient's active consents for `studyId` */
  const activeConsents = (patientId: string, studyId: string) =>
    consentsOf(patientId, { studyId, status: "active" });

  async function researchOf(node: GraphNode) {
    // every programme, in keyset pages: none is left out of the patient's view
    const approvals = await findAll(graph, "HDABApproval");
    const consents = await consentsOf(node.id);
    return approvals.map((a) => {
      const mine = consents.filter((c) => c.properties.studyId === a.id);
      const active = mine.find((c) => c.properties.status === "active");
      // a programme has one active consent at a time, so the last made (the scan keeps the order they
      // were made in) is the one revoked last
      const revoked = mine.at(-1);
      const p = a.properties;
      return {
        studyId: a.id,
        title: str(p.title) ?? str(p.name) ?? str(p.purpose) ?? a.id,
        purpose: str(p.purpose) ?? "RESEARCH",
        sponsor: str(p.applicant) ?? str(p.consumer) ?? str(p.requester) ?? null,
        status: str(p.status) ?? null,
        validUntil: str(p.validUntil) ?? str(p.expiresAt) ?? null,
        consent: active
          ? {
              consentId: active.id,
              status: "active",
              grantedAt: active.properties.dateTime,
              purpose: active.properties.purpose,
            }
          : revoked
            ? { consentId: revoked.id, status: "revoked", revokedAt: revoked.properties.revokedAt }
            : null,
      };
    });
  }

  const scopeOf = (user: SessionUser) =>
    user.roles.includes("CONNECTOR_ADMIN")
      ? "admin"
      : user.roles.includes("DATA_HOLDER")
        ? `holder:${organisationSlugOf(user) ?? ""}`
        : `patient:${user.patientId ?? ""}`;
  /**
   * A page of the patient list shows identities (names, birth dates) of many patients: one entry per
   * page read, naming the page (which patients it held follows from the store at that time), not one
   * per patient. A patient's own list (their record alone) is not logged.
   */
  async function noteList(
    user: SessionUser,
    scope: string,
    opts: { limit: number; offset: number },
    action: string,
  ) {
    if (!accessLog || scope.startsWith("patient:")) return;
    await accessLog.read({
      actor: user.username,
      action,
      patientId: `${scope} offset ${opts.offset} limit ${opts.limit}`,
    });
  }

  // the list per caller's scope and page, and one patient's record answers (profile, insights, research)
  // for every caller who passes the access check, per graph version (server/http/kept); shared, so frozen
  const keptLists = createKept<readonly Patient[]>({ max: 128 });
  const keptRecords = createKept<unknown>({ max: 1024 });
  const keptRecord = <T>(node: GraphNode, args: unknown[], build: () => Promise<T>) =>
    keptRecords({ caller: EVERYONE, versions: [graph.version()], args: [node.id, ...args] }, async () =>
      deepFrozen(await build()),
    ) as Promise<T>;

  async function profileOf(node: GraphNode): Promise<PatientProfile> {
    const [encounters, conditions, observations, medications] = await Promise.all(
      ["HAS_ENCOUNTER", "HAS_CONDITION", "HAS_OBSERVATION", "HAS_MEDICATION_REQUEST"].map(async (t) =>
        (await related(node.id, t)).map(item),
      ),
    );
    return { patient: toPatient(node), encounters, conditions, observations, medications };
  }

  async function listOf(user: SessionUser, opts: { limit: number; offset: number }): Promise<Patient[]> {
    const admin = user.roles.includes("CONNECTOR_ADMIN");
    if (admin || user.roles.includes("DATA_HOLDER")) {
      const holder = organisationSlugOf(user);
      if (!admin && !holder) return [];
      const where = admin ? undefined : { holder: holder! };
      return (await graph.findNodes({ label: "Patient", where, ...opts })).map(toPatient);
    }
    if (user.patientId && opts.offset === 0) {
      const own = await graph.getNode(user.patientId);
      return own ? [toPatient(own)] : [];
    }
    return [];
  }

  return {
    /** GET /api/patient and the /patients page (audited as `action`), kept per scope and page (above) */
    async list(
      user: SessionUser,
      opts: { limit: number; offset: number },
      action: "patient.list.read" | "patient.list.page.read",
    ): Promise<readonly Patient[]> {
      const scope = scopeOf(user);
      const key = { caller: scope, versions: [graph.version()], args: [opts.limit, opts.offset] };
      const list = keptLists(key, async () => deepFrozen(await listOf(user, opts)));
      // the page is answered once its look is on record
      await Promise.all([noteList(user, scope, opts, action), list]);
      return list;
    },
    /**
     * GET /api/patient/profile, /insights and /research and the record's page: the access check (audited
     * as `action`) runs on every read; the answer is kept (above; insights also per age, which moves
     * with the clock). The page audits one read for all it shows.
     */
    async profile(patientId: string | null, user: SessionUser, action?: RecordRead): Promise<PatientProfile> {
      const node = await load(patientId, user, action);
      return keptRecord(node, ["profile"], () => profileOf(node));
    },

    async insights(patientId: string | null, user: SessionUser, action?: RecordRead) {
      const node = await load(patientId, user, action);
      const age = ageOf(toPatient(node).birthDate);
      return keptRecord(node, ["insights", age], async () => insightsOf(await profileOf(node), age));
    },

    /** research programmes: approved secondary-use projects of the marketplace (l1 HDABApproval), with this patient's consent */
    async research(patientId: string | null, user: SessionUser, action?: RecordRead) {
      const node = await load(patientId, user, action);
      return keptRecord(node, ["research"], () => researchOf(node));
    },

    async grantConsent(body: Record<string, unknown>, user: SessionUser): Promise<{ consentId: string }> {
      const patientId = typeof body.patientId === "string" ? body.patientId.trim() : "";
      const studyId = typeof body.studyId === "string" ? body.studyId.trim() : "";
      if (!patientId || !studyId)
        throw missingFields({ patientId, studyId }, "patientId and studyId are required");
      const purpose =
        typeof body.purpose === "string" && body.purpose.trim() ? body.purpose.trim() : "RESEARCH";
      if (purpose.length > 200) throw invalidField("purpose", "purpose must be at most 200 characters");
      await load(patientId, user);
      const study = await graph.getNode(studyId);
      if (!study || study.label !== "HDABApproval") throw notFound(`Research programme ${studyId} not found`);
      const [existing] = await activeConsents(patientId, studyId);
      if (existing)
        throw new ApiError(409, "Consent for this programme is already active", undefined, {
          consentId: existing.id,
        });
      const consentId = `consent-${crypto.randomUUID()}`;
      await graph.mutate(
        [
          {
            op: "createNode",
            node: {
              id: consentId,
              label: "Consent",
              layer: "l3",
              properties: {
                resourceType: "Consent",
                status: "active",
                scope: "research",
                patientId,
                studyId,
                purpose,
                dateTime: new Date().toISOString(),
                grantedBy: user.username,
              },
            },
          },
          edge(`has-consent-${consentId}`, patientId, consentId, "HAS_CONSENT"),
          edge(`consent-for-${consentId}`, consentId, studyId, "CONSENT_FOR"),
        ],
        { action: "consent.grant", actor: user.username, target: `${patientId}/${studyId}`, kind: "consent" },
      );
      return { consentId };
    },

    async revokeConsent(patientId: string | null, studyId: string | null, user: SessionUser): Promise<void> {
      if (!patientId || !studyId)
        throw missingFields({ patientId, studyId }, "patientId and studyId are required");
      await load(patientId, user);
      const active = await activeConsents(patientId, studyId);
      if (!active.length) throw notFound("No active consent for this programme");
      const revokedAt = new Date().toISOString();
      await graph.mutate(
        active.map((c) => ({
          op: "updateNode" as const,
          id: c.id,
          properties: { status: "inactive", revokedAt, revokedBy: user.username },
        })),
        {
          action: "consent.revoke",
          actor: user.username,
          target: `${patientId}/${studyId}`,
          kind: "consent",
        },
      );
    },
  };
}
export type PatientService = ReturnType<typeof createPatientService>;
