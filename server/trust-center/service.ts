import { z } from "zod";
import type { AuditLog } from "../audit/log";
import type { Config } from "../config";
import { isSmall } from "../federated";
import { linked, type GraphStore } from "../graph";
import { createKept, deepFrozen, EVERYONE, identityOf } from "../http/kept";
import type { Relational } from "../storage/relational";
import { ruleActions } from "../policies";

/**
 * The trust center view (GET /api/trust-center), for trust-center operators:
 *
 * - trust centers: one per member state of the dataspace's participants (seeded into the
 *   hub's own table on first start, from the countries of the marketplace's participants), each
 *   with the access body of its country where the dataspace has one;
 * - pseudonym resolution: every dataset with personal data, the pseudonymisation domain the trust
 *   center of the holder's country keeps for it and how many patients it covers (counted from the
 *   graph's INCLUDES links), and the record linkages permits need: for a data user whose permits
 *   cover several datasets, the number of patients the trust center links across each pair
 *   (computed from the same links; fewer than k shown as suppressed);
 * - mutual recognition between countries: the agreements in the hub's table, and every
 *   cross-border contract of the marketplace with whether an agreement covers it;
 * - secure processing environment sessions: one per data permit of the access body (HDABApproval),
 *   with its datasets, state, the k threshold and the output policy that follows from the
 *   permit's ODRL agreement (anonymise, no re-identification, aggregate outputs of at least k).
 */

const count = z.number().int().min(0);
const text = z.string();
const trustCenter = z.object({
  id: text,
  name: text,
  country: text,
  did: text,
  accessBody: z.object({ name: text, did: text }).nullable(),
  scheme: text,
  datasets: count,
  /** distinct patients of the country's datasets; null when suppressed (from 1 to k−1) */
  patients: count.nullable(),
  activeSessions: count,
});
const pseudonymDomain = z.object({
  datasetId: text,
  title: text,
  holder: text,
  country: text.nullable(),
  trustCenter: text.nullable(),
  domain: text,
  /** the dataset's patients; null when suppressed (from 1 to k−1), as a linkage's */
  patients: count.nullable(),
  suppressed: z.boolean(),
});
const linkage = z.object({
  id: text,
  dataUser: text,
  permitNumbers: z.array(text),
  // a pair, as an array of two (a tuple is prefixItems, which Schemathesis 4.32 cannot read: 0082)
  datasets: z.array(text).length(2),
  sameHolder: z.boolean(),
  /** patients present in both datasets; null when suppressed (fewer than k) */
  linkedPatients: count.nullable(),
  suppressed: z.boolean(),
  state: z.enum(["resolved", "not-linkable"]),
  note: text,
});
const recognitionStatus = z.enum(["recognised", "pending", "suspended"]);
const recognition = z.object({
  from: text,
  to: text,
  status: recognitionStatus,
  basis: text,
  since: text.nullable(),
});
const crossBorderFlow = z.object({
  contractId: text,
  provider: text,
  providerCountry: text,
  consumer: text,
  consumerCountry: text,
  contractStatus: text,
  recognition: z.union([recognitionStatus, z.literal("none")]),
  covered: z.boolean(),
});
const speSession = z.object({
  id: text,
  permitNumber: text,
  dataUser: text,
  purpose: text.nullable(),
  datasets: z.array(z.object({ id: text, title: text })),
  environment: text,
  state: z.enum(["active", "scheduled", "closed", "terminated"]),
  openedAt: text.nullable(),
  closesAt: text.nullable(),
  k: count,
  outputPolicy: z.object({
    aggregateOnly: z.boolean(),
    minimumCellSize: count,
    suppression: text,
    review: text,
    prohibited: z.array(text),
    obligations: z.array(text),
  }),
  trustCenter: text.nullable(),
});
/** GET /api/trust-center's answer (its declaration: contract.ts) */
export const trustCenterView = z.object({
  generatedAt: z.iso.datetime(),
  k: count,
  trustCenters: z.array(trustCenter),
  pseudonymResolution: z.object({
    scheme: text,
    datasets: z.array(pseudonymDomain),
    linkages: z.array(linkage),
  }),
  mutualRecognition: z.object({
    countries: z.array(text),
    agreements: z.array(recognition),
    crossBorderFlows: z.array(crossBorderFlow),
  }),
  speSessions: z.array(speSession),
  summary: z.object({
    trustCenters: count,
    pseudonymisedDatasets: count,
    patientsCovered: count,
    activeSessions: count,
    uncoveredFlows: count,
  }),
});
type TrustCenter = z.infer<typeof trustCenter>;
type Recognition = z.infer<typeof recognition>;
type SpeSession = z.infer<typeof speSession>;
export type TrustCenterView = z.infer<typeof trustCenterView>;

const SCHEME =
  "keyed pseudonyms: HMAC-SHA-256 under the trust center's key, one domain per dataset; re-linking only for a permit, inside the trust center";

const COUNTRY_NAMES: Record<string, string> = {
  DE: "Germany",
  NL: "Netherlands",
  FR: "France",
  BE: "Belgium",
  AT: "Austria",
};

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** the change-feed topic of the trust_centers and trust_recognitions rows (bumped in the transaction of every write) */
export const TRUST_CENTER_TOPIC = "trust-centers";

type CentreRow = Pick<TrustCenter, "id" | "name" | "country" | "did">;
type Rows = { centres: CentreRow[]; agreements: Recognition[] };

export async function createTrustCenterService(deps: {
  rel: Relational;
  audit: AuditLog;
  config: Config;
  graph: GraphStore;
}) {
  const { rel, graph, config } = deps;
  await rel.migrate("trust-center-1", async (m) => {
    await m.schema
      .createTable("trust_centers")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("country", "text", (c) => c.notNull().unique())
      .addColumn("did", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await m.schema
      .createTable("trust_recognitions")
      .addColumn("from_country", "text", (c) => c.notNull())
      .addColumn("to_country", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("basis", "text", (c) => c.notNull())
      .addColumn("since", "text")
      .addPrimaryKeyConstraint("trust_recognitions_pk", ["from_country", "to_country"])
      .execute();
  });

  /** what the view reads from the graph: built once per graph version */
  async function readGraph() {
    const participants = await graph.findNodes({ label: "Participant", limit: 500 });
    // the member states of the participants: the trust centers to seed
    const countries = [
      ...new Set(participants.map((p) => str(p.properties.country)).filter((c): c is string => !!c)),
    ].sort();
    const datasets = (await graph.findNodes({ label: "HealthDataset", limit: 1000 })).filter(
      (d) => d.properties.personalData !== false,
    );
    // patient node ids per dataset (INCLUDES links)
    const members = new Map<string, Set<string>>();
    for (const d of datasets) {
      members.set(d.id, new Set((await linked(graph, d.id, "INCLUDES", "out", 200_000)).map((n) => n.id)));
    }
    // each permit's walk through the graph (APPROVES → GOVERNS → DESCRIBED_BY, HAS_POLICY)
    const permits = [];
    for (const a of await graph.findNodes({ label: "HDABApproval", limit: 5000 })) {
      const status = str(a.properties.status) ?? "PENDING";
      // no permit yet (the application is under assessment): no secure processing session either
      if (status !== "GRANTED" && status !== "REVOKED") continue;
      const contracts = await linked(graph, a.id, "APPROVES", "out", 50);
      const ds: { id: string; title: string }[] = [];
      const prohibited = new Set<string>(["ehds:reIdentify"]);
      const obligations = new Set<string>();
      for (const c of contracts) {
        const [product] = await linked(graph, c.id, "GOVERNS", "out", 1);
        const dataset = product ? (await linked(graph, product.id, "DESCRIBED_BY", "out", 1))[0] : undefined;
        if (dataset) ds.push({ id: dataset.id, title: str(dataset.properties.title) ?? dataset.id });
        for (const p of await linked(graph, c.id, "HAS_POLICY", "out", 5)) {
          for (const x of ruleActions(p.properties.prohibition)) prohibited.add(x);
          for (const x of ruleActions(p.properties.obligation)) obligations.add(x);
        }
      }
      permits.push({
        approval: a,
        status,
        datasets: ds,
        prohibited: [...prohibited].sort(),
        obligations: [...new Set(["anonymize", ...obligations])].sort(),
      });
    }
    const contracts = await graph.findNodes({ label: "Contract", limit: 5000 });
    // counts over `members`, kept as first asked (date-independent)
    const memo = new Map<string, number>();
    return { participants, countries, datasets, members, permits, contracts, memo };
  }
  type GraphParts = Awaited<ReturnType<typeof readGraph>>;
  const keptParts = createKept<GraphParts>({ max: 1 });
  const views = createKept<TrustCenterView>({ max: 4 });
  const graphParts = () => keptParts({ caller: EVERYONE, versions: [graph.version()] }, readGraph);

  /** a trust center per country of the marketplace's participants, and the recognitions between them */
  async function ensureSeeded(countries: string[]) {
    const at = new Date().toISOString();
    await rel.tx(async (tx) => {
      let inserted = 0;
      /** a row, unless its key is taken (another instance, an earlier seeding) */
      const insert = async (table: string, values: Record<string, string | null>) => {
        const r = await tx
          .insertInto(table)
          .values(values)
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        inserted += Number(r?.numInsertedOrUpdatedRows ?? 0);
      };
      for (const c of countries)
        await insert("trust_centers", {
          id: `trust-center-${c.toLowerCase()}`,
          name: `Trust Center ${c}`,
          country: c,
          did: `did:web:trustcenter.${c.toLowerCase()}.example:tc`,
          created_at: at,
        });
      // DE recognises its neighbours' pseudonymisation and they recognise DE (bilateral agreements);
      // other pairs start as pending until their agreement is signed
      for (const a of countries)
        for (const b of countries) {
          if (a === b) continue;
          const withDe = a === "DE" || b === "DE";
          await insert("trust_recognitions", {
            from_country: a,
            to_country: b,
            status: withDe ? "recognised" : "pending",
            basis: withDe
              ? "bilateral agreement on pseudonymisation and data permits (HealthData@EU)"
              : "agreement in preparation",
            since: withDe ? "2025-03-26" : null,
          });
        }
      // every instance (this one included) reads the rows again
      if (inserted > 0) await rel.changes.bump(tx, TRUST_CENTER_TOPIC);
    });
  }

  // Seeding is one write transaction: run once per set of countries (at the first view after a start,
  // and again when a graph write brings a participant of a new country), not per request.
  const seeds = createKept<void>({ max: 1 });
  const keptRows = createKept<Rows>({ max: 1 });
  // another instance may have inserted the rows first (nothing inserted here, its notice possibly
  // still on its way): after each seeding the rows are read again rather than trust rows kept before it
  let seedings = 0;
  const seeded = (countries: string[]) =>
    seeds({ caller: EVERYONE, versions: [], args: [countries.join(",")] }, async () => {
      await ensureSeeded(countries);
      seedings++;
    });

  /** the trust_centers and trust_recognitions rows, read again after any write (the change feed) */
  const rows = () =>
    keptRows(
      { caller: EVERYONE, versions: [rel.changes.version(TRUST_CENTER_TOPIC), seedings] },
      async () => ({
        centres: (await rel.db
          .selectFrom("trust_centers")
          .selectAll()
          .orderBy("country")
          .execute()) as CentreRow[],
        agreements: (await rel.db
          .selectFrom("trust_recognitions")
          .select(["from_country as from", "to_country as to", "status", "basis", "since"])
          .orderBy("from_country")
          .orderBy("to_country")
          .execute()) as Recognition[],
      }),
    );

  async function inputs() {
    const g = await graphParts();
    await seeded(g.countries);
    return { g, r: await rows() };
  }

  /** the view from its inputs; only the sessions' states (and what follows from them) depend on `today` */
  function assemble(g: GraphParts, r: Rows, k: number, today: string, generatedAt: string): TrustCenterView {
    const { participants, datasets, members } = g;
    const { centres: centreRows, agreements } = r;
    const bySlug = new Map(participants.map((p) => [String(p.properties.slug ?? p.id), p]));
    const byDid = new Map(participants.map((p) => [String(p.properties.did ?? ""), p]));
    const participant = (slugOrDid: string) => bySlug.get(slugOrDid) ?? byDid.get(slugOrDid);
    const countryOf = (slugOrDid: string | null) =>
      slugOrDid ? str(participant(slugOrDid)?.properties.country) : null;
    const nameOf = (slugOrDid: string | null) =>
      slugOrDid ? (str(participant(slugOrDid)?.properties.displayName) ?? slugOrDid) : "unknown";
    const holderOf = (datasetId: string | undefined) =>
      datasets.find((d) => d.id === datasetId)?.properties.holder as string | undefined;
    const centreOf = (country: string | null) => centreRows.find((c) => c.country === country) ?? null;
    const memo = (key: string, count: () => number) => {
      let n = g.memo.get(key);
      if (n === undefined) g.memo.set(key, (n = count()));
      return n;
    };
    // a count of patients from 1 to k−1 is shown to no one here, as the linkages' (decision 0093)
    const small = (n: number) => isSmall(n, k);

    // pseudonymisation domains, with the patients of each dataset
    const domains = datasets.map((d) => {
      const holder = str(d.properties.holder) ?? "";
      const country = countryOf(holder);
      const centre = centreOf(country);
      const patients = members.get(d.id)?.size ?? 0;
      return {
        datasetId: d.id,
        title: str(d.properties.title) ?? d.id,
        holder: nameOf(holder),
        country,
        trustCenter: centre?.name ?? null,
        domain: `${centre?.id ?? "no-trust-center"}/${d.id}`,
        patients: small(patients) ? null : patients,
        suppressed: small(patients),
      };
    });

    const sessions: SpeSession[] = [];
    const permitDatasets = new Map<string, { permits: Set<string>; datasets: Set<string> }>(); // by data user
    for (const { approval: a, status, datasets: ds, prohibited, obligations } of g.permits) {
      const validUntil = str(a.properties.validUntil);
      const user = str(a.properties.applicant) ?? "unknown";
      const permitNumber = str(a.properties.permitNumber) ?? a.id;
      const state: SpeSession["state"] =
        status === "REVOKED" ? "terminated" : validUntil && validUntil < today ? "closed" : "active";
      sessions.push({
        id: `spe-${a.id}`,
        permitNumber,
        dataUser: nameOf(user),
        purpose: str(a.properties.purpose),
        datasets: ds.map((d) => ({ ...d })),
        environment: str(a.properties.processingEnvironment) ?? "secure processing environment",
        state,
        openedAt: str(a.properties.decisionDate),
        closesAt: validUntil,
        k,
        outputPolicy: {
          aggregateOnly: true,
          minimumCellSize: k,
          suppression: `counts below ${k} suppressed, with complementary suppression so they cannot be derived`,
          review:
            "the trust center checks every output before it leaves the environment (non-personal data only, EHDS Art. 73)",
          prohibited: [...prohibited],
          obligations: [...obligations],
        },
        trustCenter: centreOf(countryOf(holderOf(ds[0]?.id) ?? null))?.name ?? null,
      });
      // record linkage is resolved only for permits in force
      if (state === "active") {
        const entry = permitDatasets.get(user) ?? { permits: new Set<string>(), datasets: new Set<string>() };
        entry.permits.add(permitNumber);
        for (const d of ds) entry.datasets.add(d.id);
        permitDatasets.set(user, entry);
      }
    }

    // record linkage across the datasets one data user's permits cover
    const linkages: z.infer<typeof linkage>[] = [];
    for (const [user, { permits, datasets: set }] of permitDatasets) {
      const list = [...set].sort();
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const a = list[i]!;
          const b = list[j]!;
          const both = memo(`both ${a} ${b}`, () => {
            const B = members.get(b);
            return [...(members.get(a) ?? [])].filter((x) => B?.has(x)).length;
          });
          const sameHolder = holderOf(a) === holderOf(b);
          const suppressed = small(both);
          linkages.push({
            id: `link-${user}-${a}-${b}`,
            dataUser: nameOf(user),
            permitNumbers: [...permits].sort(),
            datasets: [a, b],
            sameHolder,
            linkedPatients: suppressed ? null : both,
            suppressed,
            state: both > 0 ? "resolved" : "not-linkable",
            note: sameHolder
              ? "same holder: one pseudonymisation domain per dataset, resolved to the holder's patient key inside the trust center"
              : both > 0
                ? "across holders: resolved through the trust centers' shared linkage key"
                : "no patient appears in both datasets",
          });
        }
    }

    const flows: z.infer<typeof crossBorderFlow>[] = [];
    for (const c of g.contracts) {
      const provider = str(c.properties.providerDid);
      const consumer = str(c.properties.consumerDid);
      const pc = countryOf(provider);
      const cc = countryOf(consumer);
      if (!pc || !cc || pc === cc) continue;
      const rec = agreements.find((a) => a.from === pc && a.to === cc);
      flows.push({
        contractId: c.id,
        provider: nameOf(provider),
        providerCountry: pc,
        consumer: nameOf(consumer),
        consumerCountry: cc,
        contractStatus: str(c.properties.status) ?? "unknown",
        recognition: rec?.status ?? "none",
        covered: rec?.status === "recognised",
      });
    }

    const trustCenters: TrustCenter[] = centreRows.map((c) => {
      const hdab = participants.find(
        (p) => p.properties.country === c.country && /HDAB/.test(String(p.properties.role ?? "")),
      );
      const own = domains.filter((d) => d.country === c.country);
      // distinct patients: a patient is in several of a holder's datasets
      const patients = memo(
        `country ${c.country}`,
        () => new Set(own.flatMap((d) => [...(members.get(d.datasetId) ?? [])])).size,
      );
      return {
        id: c.id,
        name: c.name,
        country: c.country,
        did: c.did,
        accessBody: hdab
          ? { name: String(hdab.properties.displayName ?? hdab.id), did: String(hdab.properties.did ?? "") }
          : null,
        scheme: SCHEME,
        datasets: own.length,
        patients: small(patients) ? null : patients,
        activeSessions: sessions.filter((s) => s.state === "active" && s.trustCenter === c.name).length,
      };
    });

    const rank = (s: SpeSession) => (s.state === "active" ? "" : s.state);
    const patientsCovered = memo("covered", () => new Set([...members.values()].flatMap((s) => [...s])).size);
    return {
      generatedAt,
      k,
      trustCenters,
      pseudonymResolution: { scheme: SCHEME, datasets: domains, linkages },
      mutualRecognition: {
        countries: centreRows.map(
          (c) => `${c.country}${COUNTRY_NAMES[c.country] ? ` (${COUNTRY_NAMES[c.country]})` : ""}`,
        ),
        agreements,
        crossBorderFlows: flows,
      },
      // active first, then by state, each by permit number
      speSessions: sessions.sort(
        (a, b) => rank(a).localeCompare(rank(b)) || a.permitNumber.localeCompare(b.permitNumber),
      ),
      summary: {
        trustCenters: trustCenters.length,
        pseudonymisedDatasets: domains.length,
        patientsCovered,
        activeSessions: sessions.filter((s) => s.state === "active").length,
        uncoveredFlows: flows.filter((f) => !f.covered).length,
      },
    };
  }

  return {
    /** the view, kept per inputs and day as built (its time the build's): encoded once at the edge */
    async view(now = new Date()): Promise<TrustCenterView> {
      const { g, r } = await inputs();
      const today = now.toISOString().slice(0, 10);
      return views({ caller: EVERYONE, versions: [identityOf(g), identityOf(r)], args: [today] }, async () =>
        deepFrozen(assemble(g, r, config.federatedK, today, now.toISOString())),
      );
    },
  };
}

export type TrustCenterService = Awaited<ReturnType<typeof createTrustCenterService>>;
