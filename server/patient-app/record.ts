import { badRequest, notFound } from "../http/errors";
import { linked, type GraphNode } from "../graph";
import { bundle, isSelfMeasured, RELATIONS, toPatient, type BundleExtra, type FhirResource } from "./fhir";
import { topicVersion } from "../storage/relational";
import { queryValues } from "../http/contract";
import { createKept, deepFrozen } from "../http/kept";
import type { ObservationQuery } from "./contract";
import { observationMutations, validateObservations } from "./observations";
import { RECORD_LIMIT, auditIn, iso, random, type PatientAppDeps, type Principal } from "./principal";
import { SYNC_TOPIC, type PatientAppStore } from "./store";
import { planSync, readHolderRecords } from "./sync";

/**
 * The caller's own record: as FHIR R4, self-measured observations (add, search), and the EHR sync
 * from the data holders with its ledger. The patient id always comes from the Principal.
 */
export function createPatientRecord(deps: PatientAppDeps, store: PatientAppStore) {
  const { audit, graph, config } = deps;
  const { rel } = store;

  async function patientNode(patientId: string): Promise<GraphNode> {
    const node = await graph.getNode(patientId);
    if (!node || node.label !== "Patient") throw notFound("Your patient record was not found");
    return node;
  }

  async function observationNodes(patientId: string): Promise<GraphNode[]> {
    return linked(graph, patientId, "HAS_OBSERVATION", "out", RECORD_LIMIT);
  }

  /** the record's parts: everything but the Bundle's id and times (made per request) */
  async function recordParts(
    patientId: string,
  ): Promise<{ tag?: BundleExtra["tag"]; resources: FhirResource[] }> {
    const patient = await patientNode(patientId);
    const holder = typeof patient.properties.holder === "string" ? patient.properties.holder : undefined;
    const ledger = new Map((await store.syncItems(patient.id)).map((i) => [i.resource_key, i]));
    const resources: FhirResource[] = [toPatient(patient)];
    for (const [type, toResource] of Object.entries(RELATIONS)) {
      for (const node of await linked(graph, patient.id, type, "out", RECORD_LIMIT)) {
        const synced = ledger.get(`${node.properties.resourceType}/${node.id}`);
        resources.push(
          toResource(node, patient.id, holder, synced ? iso(synced.last_changed_at)! : undefined),
        );
      }
    }
    const last = await store.lastSyncRun(patient.id);
    const tag = last
      ? [{ system: "urn:health-dataspace-hub:sync", code: "last-ehr-sync", display: iso(last.at)! }]
      : undefined;
    return deepFrozen({ tag, resources });
  }

  /** the patient's observations, newest first, each with what filters it */
  async function observationParts(patientId: string) {
    await patientNode(patientId);
    const nodes = await observationNodes(patientId);
    // sorted once: the sort is stable, so a filtered list keeps the order it would have sorted alone
    nodes.sort((a, b) =>
      String(b.properties.effectiveDateTime ?? "").localeCompare(
        String(a.properties.effectiveDateTime ?? ""),
      ),
    );
    const items = nodes.map((n) => {
      const resource = RELATIONS.HAS_OBSERVATION(n, patientId);
      return {
        code: String(n.properties.code),
        t: Date.parse(String(n.properties.effectiveDateTime ?? "")),
        self: isSelfMeasured(n),
        resource,
      };
    });
    return deepFrozen({ items });
  }

  /** the search's parameters (parsed by the route's declaration) checked, then the patient's kept observations filtered */
  async function searchObservations(patientId: string, query: ObservationQuery) {
    // LOINC codes as FHIR tokens ("http://loinc.org|8867-4" or "8867-4"), checked by the route's declaration
    const codes = (query.code ?? "")
      .split(",")
      .filter(Boolean)
      .map((c) => c.replace(/^http:\/\/loinc\.org\|/, ""));
    const from = dateBound(query.from, "from", "start");
    const to = dateBound(query.to, "to", "end");
    if (from !== null && to !== null && from > to) throw badRequest("from must not be after to");
    const source = query.source ?? "all";
    const kept = await keptObservations({ caller: patientId, versions: [graph.version()] }, () =>
      observationParts(patientId),
    );
    if (!codes.length && from === null && to === null && source === "all") return kept.items;
    return kept.items.filter(
      (o) =>
        (!codes.length || codes.includes(o.code)) &&
        (from === null || o.t >= from) &&
        (to === null || o.t <= to) &&
        (source !== "self" || o.self) &&
        (source !== "holder" || !o.self),
    );
  }

  // the record's parts: graph and sync ledger; the observations': the graph alone
  const keptRecords = createKept<Awaited<ReturnType<typeof recordParts>>>({ max: 256 });
  const keptObservations = createKept<Awaited<ReturnType<typeof observationParts>>>({ max: 256 });
  const keptBundles = createKept<ReturnType<typeof bundle>>({ max: 512 });

  /** a record or observation read on record (see PatientAppDeps.accessLog) */
  const logRead = async (principal: Principal & { patientId: string }, action: string) => {
    const look = { action, actor: principal.actor, kind: "patient-app" };
    if (deps.accessLog) await deps.accessLog.read({ ...look, patientId: principal.patientId });
    else await audit.append({ ...look, target: principal.patientId });
  };

  return {
    patientNode,
    observationNodes,
    flushLog: () => deps.accessLog?.flush() ?? Promise.resolve(),

    /** GET /api/patient/app/record: the Bundle, its parts kept per patient and version (shared: read only) */
    async record(principal: Principal & { patientId: string }) {
      const version = `${graph.version()}/${await topicVersion(rel, SYNC_TOPIC)}`;
      const key = { caller: principal.patientId, versions: [version] };
      // the Bundle kept with its parts, as built (its id and time the build's): encoded once at the edge
      const record = await keptBundles(key, async () => {
        const parts = await keptRecords(key, () => recordParts(principal.patientId));
        return deepFrozen(bundle("collection", parts.resources, { tag: parts.tag }));
      });
      await logRead(principal, "patient-app.record.read");
      return record;
    },

    async addObservations(principal: Principal & { patientId: string }, body: Record<string, unknown>) {
      const now = new Date();
      const items = validateObservations(body, principal.patientId, now);
      await patientNode(principal.patientId);
      const loincNodes = new Set<string>();
      for (const code of new Set(items.map((i) => i.measure.loinc)))
        if (await graph.getNode(`loinc-${code}`)) loincNodes.add(`loinc-${code}`);
      const { mutations, ids } = observationMutations(items, {
        patientId: principal.patientId,
        accountId: principal.kind === "device" ? principal.accountId : null,
        enteredBy: principal.actor,
        deviceName: principal.kind === "device" ? principal.deviceName : null,
        loincNodes,
        now,
      });
      await graph.mutate(mutations, {
        action: "patient-app.observation.add",
        actor: principal.actor,
        target: principal.patientId,
        kind: "patient-app",
      });
      const created: FhirResource[] = [];
      for (const id of ids) {
        const n = await graph.getNode(id);
        if (n) created.push(RELATIONS.HAS_OBSERVATION(n, principal.patientId));
      }
      return created;
    },

    /**
     * GET /api/patient/observations: the searchset Bundle (its resources shared with the kept parts:
     * read only). `query`: the route's parsed search; a view passes the URL alone. `action`: the read
     * on record as the record's is (the route's; the patient's own Devices page is not a look).
     */
    async observations(
      principal: Principal & { patientId: string },
      url: URL,
      query = queryValues(url.searchParams) as ObservationQuery,
      action?: "patient-app.observations.read",
    ) {
      // the searchset kept per patient, graph version and search, as built (its id and time the build's)
      const key = {
        caller: principal.patientId,
        versions: [graph.version()],
        args: [url.pathname, url.search],
      };
      const [searchset] = await Promise.all([
        keptBundles(key, async () => {
          const resources = (await searchObservations(principal.patientId, query)).map((o) => o.resource);
          const self = `${config.publicUrl}${url.pathname}${url.search}`;
          return deepFrozen(bundle("searchset", resources, { link: [{ relation: "self", url: self }] }));
        }),
        // on record as the record's read is, before it is answered
        action && logRead(principal, action),
      ]);
      return searchset;
    },

    async sync(principal: Principal & { patientId: string }) {
      const patient = await patientNode(principal.patientId);
      const records = await readHolderRecords(graph, patient);
      const ledger = await store.syncItems(patient.id);
      const plan = planSync(records, ledger);
      const now = Date.now();
      await rel.tx(async (tx) => {
        for (const r of plan.upserts)
          await store.upsertSyncItem(
            { patient_id: patient.id, resource_key: r.key, holder: r.holder, hash: r.hash, now },
            tx,
          );
        for (const r of plan.removals) await store.deleteSyncItem(patient.id, r.resource_key, tx);
        await store.insertSyncRun(
          {
            id: `sync-${random(9)}`,
            patient_id: patient.id,
            at: now,
            actor: principal.actor,
            ...plan.totals,
          },
          tx,
        );
        await auditIn(audit, tx, {
          action: "patient-app.ehr-sync",
          actor: principal.actor,
          target: patient.id,
          outcome: `added ${plan.totals.added}, updated ${plan.totals.updated}, unchanged ${plan.totals.unchanged}, removed ${plan.totals.removed}`,
        });
      });
      return {
        patientId: patient.id,
        syncedAt: iso(now),
        firstSync: ledger.length === 0,
        changed: plan.changes.length > 0,
        holders: plan.report,
        totals: plan.totals,
        changes: plan.changes.slice(0, 200),
      };
    },

    async lastSync(patientId: string) {
      const r = await store.lastSyncRun(patientId);
      return r ? iso(r.at) : null;
    },
  };
}

export type PatientRecord = ReturnType<typeof createPatientRecord>;

function dateBound(raw: string | undefined, name: string, edge: "start" | "end"): number | null {
  if (!raw) return null;
  let t: number;
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw))
    t = Date.parse(`${raw}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`);
  else if (/^\d{4}-\d{2}-\d{2}T/.test(raw)) t = Date.parse(raw);
  else t = NaN;
  if (Number.isNaN(t)) throw badRequest(`${name} must be a date (YYYY-MM-DD) or a date-time`);
  return t;
}
