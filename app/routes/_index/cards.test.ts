import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { getUser } from "../../session.server";
import type { SessionUser } from "../../../server/auth/user";
import { loader as home } from "./route";
import { loader as negotiations } from "../negotiations._index/route";
import { loader as share } from "../share/route";
import { loader as catalogue } from "../catalogue/route";
import { loader as patients } from "../patients._index/route";
import { loader as workQueue } from "../access-body._index/route";
import { loader as abApplications } from "../access-body.applications._index/route";
import { loader as abPermits } from "../access-body.permits/route";
import { loader as applications } from "../applications._index/route";
import { loader as trustCenter } from "../trust-center/route";
import { loader as myRecord } from "../my-record/route";
import { loader as operator } from "../operator/route";
import { loader as discover } from "../discover/route";
import { loader as report } from "../access-body.report/route";
import { personaLayers } from "../../../server/graph/service";

/**
 * One source per number (issue 40): every home card of every persona shows the number of items of
 * the list it links to, read by that list's own loader for the same caller, before and after writes
 * that move them (a new finalised negotiation, a new application, a permit decision, a published
 * dataset). A card without a list here fails: each link must be known.
 */

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
}, 120_000);
afterAll(async () => h?.close());

type Loader = (args: LoaderFunctionArgs) => Promise<unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any;

/** per linked list: its loader and how many items it shows (by path, then by the fragment) */
const LISTS: Record<string, { loader: Loader; items: (d: Data, hash: string, id: string) => number }> = {
  "/negotiations": { loader: negotiations, items: (d) => d.negotiations.length },
  "/share": { loader: share, items: (d) => d.assets.length },
  "/catalogue": { loader: catalogue, items: (d) => d.results.length },
  "/patients": { loader: patients, items: (d) => d.total },
  "/access-body": { loader: workQueue, items: (d) => d.items.length },
  "/access-body/applications": { loader: abApplications, items: (d) => d.applications.length },
  "/access-body/permits": { loader: abPermits, items: (d) => d.permits.length },
  "/applications": {
    loader: applications,
    items: (d, hash) =>
      ({
        "#applications": d.applications.length,
        "#information-requests": d.informationRequests.length,
        "#permits": d.permits.length,
      })[hash] ?? Number.NaN,
  },
  "/trust-center": {
    loader: trustCenter,
    items: (d, hash) =>
      ({
        "#sessions": d.view.speSessions.length,
        "#pseudonyms": d.view.pseudonymResolution.datasets.length,
      })[hash] ?? Number.NaN,
  },
  "/my-record": {
    loader: myRecord,
    items: (d, hash, id) =>
      (
        ({
          "#insights-title record-encounters": d.view.counts.encounters,
          "#insights-title record-conditions": d.view.counts.conditions,
          "#insights-title record-medications": d.view.counts.medications,
          "#research-title programmes": d.view.programmes.length,
          "#research-title consents": d.view.programmes.filter(
            (p: { consent?: { status?: string } | null }) => p.consent?.status === "active",
          ).length,
        }) as Record<string, number>
      )[`${hash} ${id}`] ?? Number.NaN,
  },
};

const USERS = ["admin", "regulator", "clinic", "lmc", "researcher", "trustcenter", "patient1", "patient2"];

const load = async (loader: Loader, persona: string, path: string) =>
  (await loader({ request: await h.request(persona, path), context: h.context, params: {} })) as Data;

/** every card of every persona of every user: [user, persona, card id, card value, list items] */
async function compareAll() {
  const rows: [string, string, string, number, number][] = [];
  for (const u of USERS) {
    const first = await load(home, u, "/");
    for (const p of first.overview.personas as { role: string }[]) {
      const d = await load(home, u, `/?persona=${p.role}`);
      for (const s of d.overview.signals as { id: string; value: number; href?: string }[]) {
        expect(s.href, `${u} ${p.role} ${s.id} links to its list`).toBeTruthy();
        const url = new URL(s.href!, "http://x");
        // the card is a link: its list is one of the caller's views
        expect(
          (d.views as { to: string }[]).some(
            (v) => url.pathname === v.to || url.pathname.startsWith(`${v.to}/`),
          ),
          `${u} ${p.role} ${s.id}: ${url.pathname} is among the caller's views`,
        ).toBe(true);
        const list = LISTS[url.pathname];
        expect(list, `${u} ${p.role} ${s.id}: a known list (${s.href})`).toBeTruthy();
        const items = list.items(await load(list.loader, u, s.href!), url.hash, s.id);
        rows.push([u, p.role, s.id, s.value, items]);
      }
    }
  }
  return rows;
}

const mismatches = (rows: [string, string, string, number, number][]) =>
  rows.filter(([, , , card, items]) => card !== items).map((r) => r.join(" "));

const userOf = async (persona: string) => (await getUser(await h.request(persona, "/"), h.context))!;

/** the sum of each participant's own list of finalised negotiations, as the operator chooses each */
async function finalisedPerParticipant() {
  const first = await load(negotiations, "admin", "/negotiations");
  let sum = 0;
  for (const c of first.acting.choices as { participantId: string }[]) {
    const d = await load(
      negotiations,
      "admin",
      `/negotiations?participant=${encodeURIComponent(c.participantId)}&state=FINALIZED`,
    );
    sum += d.negotiations.length;
  }
  return sum;
}

const card = async (u: string, role: string, id: string) => {
  const d = await load(home, u, `/?persona=${role}`);
  return (d.overview.signals as { id: string; value: number }[]).find((s) => s.id === id)?.value;
};

describe("home cards and their lists", () => {
  it("every card of every persona counts exactly the items of the list it links to", async () => {
    const rows = await compareAll();
    expect(rows.length).toBeGreaterThan(25);
    expect(mismatches(rows)).toEqual([]);
    // the operator's contract card, across every participant (its list: /negotiations?participant=all)
    expect(
      rows.filter(
        ([u, role, id]) => u === "admin" && role === "CONNECTOR_ADMIN" && id === "contracts-across",
      ),
    ).toHaveLength(1);
  }, 120_000);

  it("the operator's contracts across the dataspace are every participant's own finalised negotiations", async () => {
    const across = await card("admin", "CONNECTOR_ADMIN", "contracts-across");
    expect(across).toBeGreaterThan(0);
    expect(across).toBe(await finalisedPerParticipant());
  }, 60_000);

  // issue 40: the researcher's home counted a contract with AlphaKlinik, AlphaKlinik's "Contracts on your
  // data" 0 — the demonstration negotiations were held on the consumer's side only
  it("a demonstration contract is held on both sides: the clinic's card and list show the provider's, the researcher its counter-party", async () => {
    const clinicCard = await card("clinic", "DATA_HOLDER", "contracts-active");
    expect(clinicCard).toBeGreaterThanOrEqual(1);
    const listed = await load(negotiations, "clinic", "/negotiations?state=FINALIZED");
    expect(listed.negotiations).toHaveLength(clinicCard!);
    const researcher = await load(negotiations, "researcher", "/negotiations?state=FINALIZED");
    const consumer = researcher.negotiations.find(
      (n: { counterPartyName: string }) => n.counterPartyName === "AlphaKlinik Berlin",
    );
    expect(consumer, "the researcher's contract with AlphaKlinik Berlin").toBeTruthy();
    // the same agreement, held by the clinic's connector as provider, with the researcher's organisation
    const provider = listed.negotiations.find(
      (n: { contractId: string }) => n.contractId === consumer.contractId,
    );
    expect(provider, `the clinic holds ${consumer.contractId}`).toMatchObject({
      type: "PROVIDER",
      counterPartyName: "PharmaCo Research AG",
      assetId: consumer.assetId,
    });
    // no organisation is its own counter-party, on either side of any negotiation it holds
    for (const [u, own] of [
      ["clinic", "AlphaKlinik Berlin"],
      ["lmc", "Limburg Medical Centre"],
      ["researcher", "PharmaCo Research AG"],
    ]) {
      const all = (await load(negotiations, u, "/negotiations")).negotiations as {
        id: string;
        counterPartyName: string;
      }[];
      expect(all.length, `${u} holds negotiations`).toBeGreaterThan(0);
      expect(
        all.filter((n) => n.counterPartyName === own).map((n) => n.id),
        u,
      ).toEqual([]);
    }
  });

  it("the operator console's catalogue figure is the number of datasets Discover lists", async () => {
    const console = await load(operator, "admin", "/operator");
    const listed = await load(discover, "admin", "/discover?show=datasets");
    expect(console.catalogueDatasets).toBe(listed.datasetTotal);
    expect(console.catalogueDatasets).toBeGreaterThan(0);
  });

  it("the layers a home names are the layers its graph link shows", async () => {
    for (const u of USERS) {
      const d = await load(home, u, "/");
      const graph = d.overview.persona.graph as string | null;
      if (!graph) continue;
      expect(personaLayers(graph), u).toEqual(d.overview.layers.map((l: { layer: string }) => l.layer));
    }
  });

  it("the activity report's permits issued are its applications granted", async () => {
    const r = (await load(report, "regulator", "/access-body/report")).report;
    expect(r.applications.granted).toBeGreaterThan(0);
    expect(r.permits.issued).toBe(r.applications.granted);
  });

  it("stay equal after writes that move them, and move with them", async () => {
    const services = h.context.services;
    const researcher: SessionUser = await userOf("researcher");
    const regulator: SessionUser = await userOf("regulator");
    const clinic: SessionUser = await userOf("clinic");
    const before = {
      contracts: await card("researcher", "DATA_USER", "contracts-active"),
      applications: await card("researcher", "DATA_USER", "ab-applications"),
      permits: await card("regulator", "HDAB_AUTHORITY", "permits-granted"),
      datasets: await card("clinic", "DATA_HOLDER", "datasets"),
      across: await card("admin", "CONNECTOR_ADMIN", "contracts-across"),
    };

    // a new negotiation of the researcher's connector, finalised by the embedded dataspace
    const ds = services.dataspace;
    const alpha = "did:web:alpha-klinik.de:participant";
    const summary = ds.summariseCatalog(await ds.fetchProviderCatalog("pharmaco", alpha));
    const offered = summary.datasets.find((x) => x.id === "fhir-cohort-bundle")!;
    const started = await ds.startNegotiation(
      {
        participantId: "pharmaco",
        counterPartyAddress: summary.endpointUrl!,
        counterPartyId: "alphaklinik-berlin",
        providerDid: alpha,
        offerId: offered.offers[0].id,
        assetId: "fhir-cohort-bundle",
      },
      "researcher",
    );
    const id = String(started["@id"]);
    for (let i = 0; i < 100; i++) {
      const n = await ds.getNegotiation("pharmaco", id);
      if (n.state === "FINALIZED" || n.state === "TERMINATED") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await ds.getNegotiation("pharmaco", id)).state).toBe("FINALIZED");

    // a new application, taken through to a permit
    const datasets = await services.catalogue.list();
    const app = await services.accessBody.submitApplication(
      {
        title: "Cards equal lists",
        purpose: "scientificResearch",
        datasets: [datasets[0].id],
        summary: "A study to check that each card counts its list.",
      },
      researcher,
    );
    const applicationId = (app as { id: string }).id;
    await services.accessBody.decideCompleteness({ applicationId, complete: true }, regulator);
    await services.accessBody.issuePermit(
      {
        applicationId,
        durationMonths: 12,
        conditions: "Aggregated output only.",
        secureProcessingEnvironment: "SPE of the access body",
      },
      regulator,
    );

    // a dataset published by the clinic
    await services.catalogue.create(
      { id: "cards-equal-lists", title: "Cards equal lists", description: "Published by a test." },
      clinic,
    );

    expect(await card("researcher", "DATA_USER", "contracts-active")).toBe(before.contracts! + 1);
    expect(await card("researcher", "DATA_USER", "ab-applications")).toBe(before.applications! + 1);
    expect(await card("regulator", "HDAB_AUTHORITY", "permits-granted")).toBe(before.permits! + 1);
    expect(await card("clinic", "DATA_HOLDER", "datasets")).toBe(before.datasets! + 1);
    // the new contract is held by the researcher's connector (as consumer) and the clinic's (as provider)
    const across = await card("admin", "CONNECTOR_ADMIN", "contracts-across");
    expect(across).toBe(before.across! + 2);
    expect(across).toBe(await finalisedPerParticipant());
    expect(mismatches(await compareAll())).toEqual([]);
    const r = (await load(report, "regulator", "/access-body/report")).report;
    expect(r.permits.issued).toBe(r.applications.granted);
  }, 180_000);
});
