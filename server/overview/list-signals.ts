/**
 * The home cards that count a list: each reads the very query of the list it links to, for the same
 * caller, and links to that list filtered the way the card counts (issue 40, "one source per
 * number").
 *
 * These reads are made at every request, not kept with the rest of the overview: the lists read
 * them that way too, so a new contract counts on the home page as soon as it is in the list. Each
 * part of the container is optional (a partial container, a test): a card whose source is missing
 * is left out; a source that fails leaves its cards out and adds a note.
 */
import type { Role } from "../auth/personas";
import { organisationOf, type SessionUser } from "../auth/user";
import { publisherOf, type CatalogueService } from "../catalogue";
import { EVERY_PARTICIPANT, negotiationsAcross, ownContextId, type Dataspace } from "../dataspace";
import { DAY, signal, type OverviewSignal } from "./model";

export interface ListSources {
  dataspace?: Pick<Dataspace, "participantForUser" | "listNegotiations" | "listAssets" | "listParticipants">;
  catalogue?: Pick<CatalogueService, "list">;
  trustCenter?: {
    view(now?: Date): Promise<{
      speSessions: unknown[];
      pseudonymResolution: { datasets: unknown[] };
      summary: { activeSessions: number; patientsCovered: number };
    }>;
  };
  patients?: {
    insights(
      patientId: string,
      user: SessionUser,
    ): Promise<{ counts: { encounters: number; conditions: number; medications: number } }>;
    research(
      patientId: string,
      user: SessionUser,
    ): Promise<{ status: string | null; consent: { status: string } | null }[]>;
  };
}

/** the negotiation state the dataspace calls a contract in force (DSP: an agreement, finalised) */
export const CONTRACT_STATE = "FINALIZED";
/** negotiation states that are over (finalised or ended) */
const SETTLED = new Set(["FINALIZED", "TERMINATED", "ERROR"]);

const DATASPACE_PERSONAS: readonly Role[] = ["DATA_USER", "DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"];
const CATALOGUE_PERSONAS: readonly Role[] = ["DATA_USER", "DATA_HOLDER", "HDAB_AUTHORITY", "CONNECTOR_ADMIN"];

export function sourcesFrom(services: unknown): ListSources {
  const s = (services ?? {}) as Record<string, unknown>;
  const part = <K extends keyof ListSources>(k: K) =>
    s[k] && typeof s[k] === "object" ? (s[k] as ListSources[K]) : undefined;
  return {
    dataspace: part("dataspace"),
    catalogue: part("catalogue"),
    trustCenter: part("trustCenter"),
    patients: part("patients"),
  };
}

export async function listSignals(
  persona: Role,
  user: SessionUser,
  sources: ListSources,
  today: Date,
): Promise<{ signals: OverviewSignal[]; notes: string[] }> {
  const signals: OverviewSignal[] = [];
  const add = (...card: Parameters<typeof signal>) => signals.push(signal(...card));
  const notes: string[] = [];
  const attempt = async (what: string, f: () => Promise<void>) => {
    try {
      await f();
    } catch (e) {
      notes.push(`${what} did not answer (${(e as Error).message}); its cards are not shown.`);
    }
  };
  const { dataspace: ds, catalogue, trustCenter, patients } = sources;

  // a member's own organisation's participant context: what /negotiations and /share read for them
  if (ds && DATASPACE_PERSONAS.includes(persona)) {
    await attempt("The dataspace", async () => {
      const own = ownContextId(await ds.participantForUser(user));
      if (!own) return;
      const negotiations = await ds.listNegotiations(own);
      const contracts = negotiations.filter((n) => n.state === CONTRACT_STATE).length;
      const running = negotiations.filter((n) => !SETTLED.has(String(n.state))).length;
      add(
        "dataspace",
        "contracts-active",
        persona === "DATA_HOLDER" ? "Contracts on your data" : "Contracts in force",
        contracts,
        "ok",
        `/negotiations?state=${CONTRACT_STATE}`,
        "finalised negotiations of your connector",
      );
      add(
        "dataspace",
        "negotiations",
        "Negotiations",
        negotiations.length,
        "info",
        "/negotiations",
        `${running} in progress`,
      );
      if (persona === "DATA_HOLDER") {
        const assets = await ds.listAssets(own);
        add("dataspace", "assets", "Assets you offer", assets.length, "info", "/share", "on your connector");
      }
    });
  }

  // the operator: every participant's connector, the list /negotiations shows it for "every participant"
  if (ds && persona === "CONNECTOR_ADMIN") {
    await attempt("The dataspace", async () => {
      const held = await negotiationsAcross(ds);
      const contracts = held.filter((h) => h.negotiation.state === CONTRACT_STATE).length;
      add(
        "dataspace",
        "contracts-across",
        "Contracts across the dataspace",
        contracts,
        "ok",
        `/negotiations?participant=${EVERY_PARTICIPANT}&state=${CONTRACT_STATE}`,
        "finalised negotiations on every participant's connector, each side counted",
      );
    });
  }

  if (catalogue && CATALOGUE_PERSONAS.includes(persona)) {
    await attempt("The catalogue", async () => {
      const all = await catalogue.list();
      const since = new Date(today.getTime() - 30 * DAY).toISOString();
      const fresh = (list: typeof all) =>
        list.filter((d) => {
          const x = d as { createdAt?: unknown; issued?: unknown; modified?: unknown };
          const at = [x.createdAt, x.issued, x.modified].find((v) => typeof v === "string") as
            string | undefined;
          return (at ?? "") >= since;
        }).length;
      const org = persona === "DATA_HOLDER" ? organisationOf(user) : undefined;
      const listed = org ? all.filter((d) => publisherOf(d) === org.displayName) : all;
      add(
        "catalogue",
        "datasets",
        org ? "Datasets you publish" : "Datasets in the catalogue",
        listed.length,
        "info",
        org ? `/catalogue?publisher=${encodeURIComponent(org.displayName)}` : "/catalogue",
        `${fresh(listed)} new in 30 days`,
      );
    });
  }

  if (trustCenter && persona === "TRUST_CENTER_OPERATOR") {
    await attempt("The trust center", async () => {
      const v = await trustCenter.view(today);
      add(
        "trust-center",
        "spe-sessions",
        "Secure processing sessions",
        v.speSessions.length,
        "ok",
        "/trust-center#sessions",
        `${v.summary.activeSessions} active`,
      );
      add(
        "trust-center",
        "pseudonymised-datasets",
        "Pseudonymised datasets",
        v.pseudonymResolution.datasets.length,
        "info",
        "/trust-center#pseudonyms",
        `${v.summary.patientsCovered} patients covered`,
      );
    });
  }
  // the patient's own record: the insights and research programmes /my-record shows (the patient's own look is not logged)
  if (patients && persona === "PATIENT" && user.patientId) {
    const patientId = user.patientId;
    await attempt("Your record", async () => {
      const [insights, programmes] = await Promise.all([
        patients.insights(patientId, user),
        patients.research(patientId, user),
      ]);
      const record = "/my-record#insights-title";
      const research = "/my-record#research-title";
      add(
        "graph",
        "record-encounters",
        "Encounters in your record",
        insights.counts.encounters,
        "info",
        record,
      );
      add("graph", "record-conditions", "Diagnoses", insights.counts.conditions, "info", record);
      add("graph", "record-medications", "Prescriptions", insights.counts.medications, "info", record);
      add(
        "graph",
        "consents",
        "Research consents you gave",
        programmes.filter((p) => p.consent?.status === "active").length,
        "ok",
        research,
      );
      add(
        "graph",
        "programmes",
        "Research programmes",
        programmes.length,
        "info",
        research,
        `${programmes.filter((p) => p.status === "GRANTED").length} approved`,
      );
    });
  }
  return { signals, notes };
}
