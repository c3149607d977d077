/**
 * GET /api/overview: each persona's home. For the persona (the caller's main role, or `?persona=`
 * among the caller's own roles; an operator may look at any), the graph layers it works with
 * with their node and link counts, and the signals it cares about: open tasks, pending approvals,
 * expiring permits, new datasets, and so on.
 *
 * Signals come from the graph (l1 contracts and HDAB approvals, l2 datasets, l3 records), and,
 * when the access-body module is present, from its work queue, permits and information requests.
 * That module is optional here: it is looked up on the service container at request time and
 * called defensively (each call bounded by a time-out), so the overview degrades to the graph's
 * signals — and says so — when it is missing or fails.
 */
import type { Role } from "../auth/personas";
import { organisationOf, type SessionUser } from "../auth/user";
import { LAYER_NAMES, LAYERS, type GraphNode, type Layer } from "../graph/model";
import type { GraphStore } from "../graph/store";
import { findAll, Lru, str } from "../analytics/scan";
import { badRequest, forbidden } from "../http/errors";

export type Tone = "info" | "ok" | "warn" | "danger";

export interface OverviewSignal {
  id: string;
  label: string;
  value: number;
  tone: Tone;
  detail?: string;
  href?: string;
  source: "graph" | "access-body";
}

export interface Overview {
  persona: { role: Role; label: string; focus: string };
  personas: { role: Role; label: string }[];
  organisation: string | null;
  layers: { layer: Layer; name: string; nodes: number; links: number }[];
  totals: { nodes: number; links: number; crossLayerLinks: number };
  signals: OverviewSignal[];
  accessBody: "available" | "unavailable" | "not-applicable";
  notes: string[];
  graphVersion: number;
  generatedAt: string;
}

export const PERSONAS: Record<Role, { label: string; focus: string; layers: readonly Layer[] }> = {
  CONNECTOR_ADMIN: {
    label: "Operator",
    focus: "the whole dataspace: graph health, contracts, approvals and new datasets",
    layers: LAYERS,
  },
  HDAB_AUTHORITY: {
    label: "Access body",
    focus: "applications and permits under the statutory clock",
    layers: ["l1", "l2", "l4", "l5"],
  },
  DATA_HOLDER: {
    label: "Data holder",
    focus: "your datasets, your patients' data and the contracts and permits on it",
    layers: LAYERS,
  },
  DATA_USER: {
    label: "Data user",
    focus: "your contracts, permits and the datasets you can use",
    layers: ["l1", "l2", "l4", "l5"],
  },
  TRUST_CENTER_OPERATOR: {
    label: "Trust center",
    focus: "pseudonymised data in the secure processing environments",
    layers: ["l1", "l3", "l4"],
  },
  CONNECTOR_USER_PARTICIPANT: {
    label: "Dataspace participant",
    focus: "your organisation's contracts",
    layers: ["l1", "l2"],
  },
  PATIENT: { label: "Patient", focus: "your record and your consents", layers: [] },
};

const ORDER: Role[] = [
  "CONNECTOR_ADMIN",
  "HDAB_AUTHORITY",
  "DATA_USER",
  "DATA_HOLDER",
  "TRUST_CENTER_OPERATOR",
  "PATIENT",
  "CONNECTOR_USER_PARTICIPANT",
];
const ALIASES: Record<string, Role> = {
  admin: "CONNECTOR_ADMIN",
  operator: "CONNECTOR_ADMIN",
  regulator: "HDAB_AUTHORITY",
  hdab: "HDAB_AUTHORITY",
  holder: "DATA_HOLDER",
  clinic: "DATA_HOLDER",
  lmc: "DATA_HOLDER",
  researcher: "DATA_USER",
  user: "DATA_USER",
  trustcenter: "TRUST_CENTER_OPERATOR",
  trust: "TRUST_CENTER_OPERATOR",
  patient: "PATIENT",
  participant: "CONNECTOR_USER_PARTICIPANT",
};

export function resolvePersona(user: Pick<SessionUser, "roles">, raw: string | null): Role {
  if (!raw) return ORDER.find((r) => user.roles.includes(r)) ?? user.roles[0];
  const key = raw.trim();
  const role = (ORDER as string[]).includes(key.toUpperCase())
    ? (key.toUpperCase() as Role)
    : ALIASES[key.toLowerCase().replace(/\d+$/, "")];
  if (!role)
    throw badRequest(`persona must be one of ${ORDER.join(", ")} (or ${Object.keys(ALIASES).join(", ")})`);
  if (!user.roles.includes(role) && !user.roles.includes("CONNECTOR_ADMIN"))
    throw forbidden("You can only open the overview of your own roles");
  return role;
}

/** what the overview reads from the access-body module, if it is there (duck-typed: the module is optional) */
interface AccessBodyPort {
  workQueue(): Promise<{
    items: {
      kind: string;
      state: string;
      waitingOn: string;
      overdue: boolean;
      organisation?: string | null;
    }[];
  }>;
  listPermits(
    user: SessionUser,
    filter?: { state?: string },
  ): Promise<{ state?: string; validUntil?: string }[]>;
  listInformationRequests(user: SessionUser, filter?: { state?: string }): Promise<{ state?: string }[]>;
  listApplications(user: SessionUser, filter?: { state?: string }): Promise<{ state?: string }[]>;
}

export function accessBodyFrom(services: unknown): Partial<AccessBodyPort> | undefined {
  const candidate = (services as { accessBody?: unknown } | null)?.accessBody;
  return candidate && typeof candidate === "object" ? (candidate as Partial<AccessBodyPort>) : undefined;
}

async function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const DAY = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export function createOverviewService(
  graph: GraphStore,
  opts: { now?: () => Date; accessBodyTimeoutMs?: number } = {},
) {
  const now = opts.now ?? (() => new Date());
  const todayKey = () => isoDay(now());
  const signalCache = new Lru<string, OverviewSignal[]>(200);
  let layerCache: {
    version: number;
    value: Promise<{ perLayer: Map<Layer, { nodes: number; links: number }>; all: number; links: number }>;
  } | null = null;

  function layerCounts() {
    const version = graph.version();
    if (layerCache?.version !== version) {
      const value = (async () => {
        const perLayer = new Map<Layer, { nodes: number; links: number }>();
        for (const l of LAYERS) {
          const [nodes, sample] = await Promise.all([graph.countNodes([l]), graph.sampleGraph([l], 1, l)]);
          perLayer.set(l, { nodes, links: sample.meta.totalEdges });
        }
        const whole = await graph.sampleGraph(LAYERS, 1, "all");
        return { perLayer, all: whole.meta.totalNodes, links: whole.meta.totalEdges };
      })();
      layerCache = { version, value };
      value.catch(() => (layerCache = null));
    }
    return layerCache!.value;
  }

  async function linksWithin(layers: readonly Layer[]): Promise<number> {
    if (!layers.length) return 0;
    return (await graph.sampleGraph(layers, 1, "persona")).meta.totalEdges;
  }

  async function graphSignals(persona: Role, user: SessionUser): Promise<OverviewSignal[]> {
    const today = now();
    const soon = isoDay(new Date(today.getTime() + 90 * DAY));
    const todayIso = isoDay(today);
    const org = user.roles.includes(persona) ? organisationOf(user) : undefined;
    const [contracts, approvals, datasets] = await Promise.all([
      findAll(graph, "Contract"),
      findAll(graph, "HDABApproval"),
      findAll(graph, "HealthDataset"),
    ]);
    const approvalContract = new Map<string, GraphNode | undefined>();
    for (const a of approvals) {
      const rel = await graph.relationships({ id: a.id, types: ["APPROVES"], direction: "out", limit: 5 });
      approvalContract.set(a.id, rel[0]?.node);
    }
    const mineAsConsumer = (c: GraphNode | undefined) =>
      !!c && (!org || c.properties.consumerDid === org.did);
    const mineAsProvider = (c: GraphNode | undefined) =>
      !!c && (!org || c.properties.providerDid === org.did);
    const approvalsFor = (pred: (c: GraphNode | undefined) => boolean) =>
      approvals.filter((a) => pred(approvalContract.get(a.id)));
    const expiring = (list: GraphNode[]) =>
      list.filter(
        (a) =>
          a.properties.status === "GRANTED" &&
          typeof a.properties.validUntil === "string" &&
          a.properties.validUntil >= todayIso &&
          a.properties.validUntil <= soon,
      );
    const expired = (list: GraphNode[]) =>
      list.filter(
        (a) =>
          a.properties.status === "GRANTED" &&
          typeof a.properties.validUntil === "string" &&
          a.properties.validUntil < todayIso,
      );
    const since = new Date(today.getTime() - 30 * DAY).toISOString();
    const newDatasets = datasets.filter(
      (d) =>
        (str(d.properties.createdAt) ?? str(d.properties.issued) ?? str(d.properties.modified) ?? "") >=
        since,
    );
    const s = (
      id: string,
      label: string,
      value: number,
      tone: Tone,
      detail?: string,
      href?: string,
    ): OverviewSignal => ({
      id,
      label,
      value,
      tone,
      source: "graph",
      ...(detail ? { detail } : {}),
      ...(href ? { href } : {}),
    });
    const orgNote = org ? org.displayName : "all organisations";

    switch (persona) {
      case "DATA_USER": {
        const mine = contracts.filter(mineAsConsumer);
        const myApprovals = approvalsFor(mineAsConsumer);
        return [
          s(
            "contracts-active",
            "Active contracts",
            mine.filter((c) => c.properties.status === "active").length,
            "ok",
            `as data user (${orgNote})`,
          ),
          s(
            "open-tasks",
            "Contracts waiting for a permit",
            mine.filter((c) => c.properties.status === "awaitingPermit").length,
            "warn",
            "agreed, not yet approved by the access body",
          ),
          s(
            "pending-approvals",
            "Pending permit decisions",
            myApprovals.filter((a) => a.properties.status === "PENDING").length,
            "warn",
          ),
          s(
            "expiring-permits",
            "Permits expiring within 90 days",
            expiring(myApprovals).length,
            "danger",
            expired(myApprovals).length ? `${expired(myApprovals).length} already expired` : undefined,
          ),
          s(
            "new-datasets",
            "New datasets (30 days)",
            newDatasets.length,
            "info",
            `${datasets.length} in the catalogue`,
            "/catalogue",
          ),
        ];
      }
      case "DATA_HOLDER": {
        const mine = contracts.filter(mineAsProvider);
        const myApprovals = approvalsFor(mineAsProvider);
        const myDatasets = org ? datasets.filter((d) => d.properties.holder === org.slug) : datasets;
        const patients = org
          ? await graph.countWhere("Patient", { holder: org.slug })
          : await graph.countWhere("Patient");
        return [
          s("datasets", "Datasets you publish", myDatasets.length, "info", orgNote, "/catalogue"),
          s("patients", "Patients whose records you hold", patients, "info", undefined, "/patients"),
          s(
            "contracts-active",
            "Active contracts on your data",
            mine.filter((c) => c.properties.status === "active").length,
            "ok",
          ),
          s(
            "open-tasks",
            "Contracts waiting for a permit",
            mine.filter((c) => c.properties.status === "awaitingPermit").length,
            "warn",
          ),
          s(
            "pending-approvals",
            "Pending permits on your data",
            myApprovals.filter((a) => a.properties.status === "PENDING").length,
            "warn",
          ),
          s(
            "expiring-permits",
            "Permits on your data expiring within 90 days",
            expiring(myApprovals).length,
            "danger",
          ),
          s("new-datasets", "New datasets (30 days)", newDatasets.length, "info", undefined, "/catalogue"),
        ];
      }
      case "HDAB_AUTHORITY":
        return [
          s(
            "pending-approvals",
            "Pending permit decisions",
            approvals.filter((a) => a.properties.status === "PENDING").length,
            "warn",
          ),
          s(
            "permits-granted",
            "Permits in force",
            approvals.filter((a) => a.properties.status === "GRANTED" && !expired([a]).length).length,
            "ok",
          ),
          s(
            "expiring-permits",
            "Permits expiring within 90 days",
            expiring(approvals).length,
            "danger",
            expired(approvals).length ? `${expired(approvals).length} already expired` : undefined,
          ),
          s(
            "open-tasks",
            "Contracts waiting for a permit",
            contracts.filter((c) => c.properties.status === "awaitingPermit").length,
            "warn",
          ),
          s(
            "new-datasets",
            "New datasets (30 days)",
            newDatasets.length,
            "info",
            `${datasets.length} in the catalogue`,
            "/catalogue",
          ),
        ];
      case "TRUST_CENTER_OPERATOR":
        return [
          s(
            "permits-granted",
            "Permits with secure processing",
            approvals.filter(
              (a) => a.properties.status === "GRANTED" && str(a.properties.processingEnvironment),
            ).length,
            "ok",
          ),
          s(
            "pseudonymised-persons",
            "Pseudonymised persons (OMOP)",
            await graph.countWhere("OMOPPerson"),
            "info",
          ),
          s("expiring-permits", "Permits expiring within 90 days", expiring(approvals).length, "danger"),
        ];
      case "PATIENT": {
        const patientId = user.patientId;
        if (!patientId) return [];
        const rels = await graph.relationships({
          id: patientId,
          types: [
            "HAS_ENCOUNTER",
            "HAS_CONDITION",
            "HAS_MEDICATION_REQUEST",
            "HAS_OBSERVATION",
            "HAS_CONSENT",
          ],
          direction: "out",
          limit: 2000,
        });
        const n = (t: string) => rels.filter((r) => r.type === t).length;
        const consents = rels.filter(
          (r) => r.type === "HAS_CONSENT" && r.node.properties.status === "active",
        ).length;
        return [
          s(
            "record-encounters",
            "Encounters in your record",
            n("HAS_ENCOUNTER"),
            "info",
            undefined,
            "/my-record",
          ),
          s("record-conditions", "Conditions", n("HAS_CONDITION"), "info", undefined, "/my-record"),
          s(
            "record-medications",
            "Medications",
            n("HAS_MEDICATION_REQUEST"),
            "info",
            undefined,
            "/my-record",
          ),
          s("consents", "Active research consents", consents, "ok", undefined, "/my-record"),
          s(
            "programmes",
            "Approved research programmes",
            approvals.filter((a) => a.properties.status === "GRANTED").length,
            "info",
          ),
        ];
      }
      case "CONNECTOR_USER_PARTICIPANT": {
        const mine = contracts.filter((c) => mineAsConsumer(c) || mineAsProvider(c));
        return [
          s(
            "contracts-active",
            "Active contracts",
            mine.filter((c) => c.properties.status === "active").length,
            "ok",
            orgNote,
          ),
          s(
            "open-tasks",
            "Contracts waiting for a permit",
            mine.filter((c) => c.properties.status === "awaitingPermit").length,
            "warn",
          ),
        ];
      }
      case "CONNECTOR_ADMIN":
      default:
        return [
          s(
            "contracts-active",
            "Active contracts",
            contracts.filter((c) => c.properties.status === "active").length,
            "ok",
          ),
          s(
            "open-tasks",
            "Contracts waiting for a permit",
            contracts.filter((c) => c.properties.status === "awaitingPermit").length,
            "warn",
          ),
          s(
            "pending-approvals",
            "Pending permit decisions",
            approvals.filter((a) => a.properties.status === "PENDING").length,
            "warn",
          ),
          s("expiring-permits", "Permits expiring within 90 days", expiring(approvals).length, "danger"),
          s(
            "new-datasets",
            "New datasets (30 days)",
            newDatasets.length,
            "info",
            `${datasets.length} in the catalogue`,
            "/catalogue",
          ),
          s("participants", "Participants", (await findAll(graph, "Participant")).length, "info"),
        ];
    }
  }

  async function accessBodySignals(
    persona: Role,
    user: SessionUser,
    port: Partial<AccessBodyPort>,
  ): Promise<OverviewSignal[]> {
    const ms = opts.accessBodyTimeoutMs ?? 2000;
    const s = (id: string, label: string, value: number, tone: Tone, detail?: string): OverviewSignal => ({
      id,
      label,
      value,
      tone,
      source: "access-body",
      ...(detail ? { detail } : {}),
    });
    const out: OverviewSignal[] = [];
    if ((persona === "HDAB_AUTHORITY" || persona === "CONNECTOR_ADMIN") && port.workQueue) {
      const q = await bounded(port.workQueue(), ms);
      const mine = q.items.filter((i) => i.waitingOn === "access body");
      out.push(
        s(
          "ab-open-tasks",
          "Open access-body tasks",
          mine.length,
          "warn",
          `${mine.filter((i) => i.overdue).length} overdue`,
        ),
      );
    }
    if (persona === "DATA_USER" && port.listInformationRequests) {
      const open = await bounded(port.listInformationRequests(user, { state: "OPEN" }), ms);
      out.push(s("ab-information-requests", "Information requests to answer", open.length, "warn"));
    }
    if (persona === "DATA_USER" && port.listApplications) {
      const apps = await bounded(port.listApplications(user), ms);
      out.push(
        s(
          "ab-applications",
          "Applications in progress",
          apps.filter((a) =>
            ["RECEIVED", "INCOMPLETE", "UNDER_ASSESSMENT", "INFORMATION_REQUESTED"].includes(a.state ?? ""),
          ).length,
          "info",
        ),
      );
    }
    if ((persona === "DATA_USER" || persona === "HDAB_AUTHORITY") && port.listPermits) {
      const permits = await bounded(port.listPermits(user, { state: "ACTIVE" }), ms);
      const soon = isoDay(new Date(now().getTime() + 90 * DAY));
      out.push(
        s(
          "ab-expiring-permits",
          "Data permits expiring within 90 days",
          permits.filter((p) => typeof p.validUntil === "string" && p.validUntil <= soon).length,
          "danger",
          `${permits.length} active`,
        ),
      );
    }
    return out;
  }

  return {
    async forUser(user: SessionUser, personaParam: string | null, services?: unknown): Promise<Overview> {
      const persona = resolvePersona(user, personaParam);
      const def = PERSONAS[persona];
      const counts = await layerCounts();
      const layers = def.layers.map((l) => ({ layer: l, name: LAYER_NAMES[l], ...counts.perLayer.get(l)! }));
      const within = await linksWithin(def.layers);
      const nodes = layers.reduce((s, l) => s + l.nodes, 0);
      const internal = layers.reduce((s, l) => s + l.links, 0);
      // the graph's signals change only with the graph: kept per version, persona and organisation (or patient)
      const version = graph.version();
      const key = [
        version,
        persona,
        user.roles.includes(persona) ? (organisationOf(user)?.slug ?? user.patientId ?? "") : "*",
        todayKey(),
      ].join("|");
      let cached = signalCache.get(key);
      if (!cached) signalCache.set(key, (cached = await graphSignals(persona, user)));
      const signals = cached.map((x) => ({ ...x }));
      const notes: string[] = [];
      let accessBody: Overview["accessBody"] = "not-applicable";
      if (["HDAB_AUTHORITY", "CONNECTOR_ADMIN", "DATA_USER"].includes(persona)) {
        const port = accessBodyFrom(services);
        if (!port) {
          accessBody = "unavailable";
          notes.push(
            "The access-body module is not available: application and permit-register signals are not shown.",
          );
        } else {
          try {
            signals.push(...(await accessBodySignals(persona, user, port)));
            accessBody = "available";
          } catch (e) {
            accessBody = "unavailable";
            notes.push(
              `The access-body module did not answer (${(e as Error).message}); its signals are not shown.`,
            );
          }
        }
      }
      const org = organisationOf(user);
      return {
        persona: { role: persona, label: def.label, focus: def.focus },
        personas: ORDER.filter((r) => user.roles.includes(r)).map((r) => ({
          role: r,
          label: PERSONAS[r].label,
        })),
        organisation: org?.displayName ?? user.organisation ?? null,
        layers,
        totals: {
          nodes: persona === "PATIENT" ? 0 : nodes,
          links: within,
          crossLayerLinks: Math.max(0, within - internal),
        },
        signals,
        accessBody,
        notes,
        graphVersion: graph.version(),
        generatedAt: new Date().toISOString(),
      };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
