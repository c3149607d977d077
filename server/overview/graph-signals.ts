/**
 * The overview's signals from the graph (l1 contracts and HDAB approvals, l2 datasets, l3 records):
 * counts only, scoped to the caller's organisation or own record.
 */
import type { Role } from "../auth/personas";
import { organisationOf, type SessionUser } from "../auth/user";
import type { GraphNode, GraphStore } from "../graph";
import { findAll, str } from "../analytics";
import { DAY, isoDay, type OverviewSignal, type Tone } from "./model";

export async function graphSignals(
  graph: GraphStore,
  persona: Role,
  user: SessionUser,
  today: Date,
): Promise<OverviewSignal[]> {
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
  const mineAsConsumer = (c: GraphNode | undefined) => !!c && (!org || c.properties.consumerDid === org.did);
  const mineAsProvider = (c: GraphNode | undefined) => !!c && (!org || c.properties.providerDid === org.did);
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
      (str(d.properties.createdAt) ?? str(d.properties.issued) ?? str(d.properties.modified) ?? "") >= since,
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
        types: ["HAS_ENCOUNTER", "HAS_CONDITION", "HAS_MEDICATION_REQUEST", "HAS_OBSERVATION", "HAS_CONSENT"],
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
        s("record-medications", "Medications", n("HAS_MEDICATION_REQUEST"), "info", undefined, "/my-record"),
        s("consents", "Active research consents", consents, "ok", undefined, "/my-record"),
        s(
          "programmes",
          "Approved research programmes",
          // in force today: an expired permit is no programme to consent to
          approvals.filter((a) => a.properties.status === "GRANTED" && !expired([a]).length).length,
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
