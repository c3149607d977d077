import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";
import { loader as transfers } from "../transfers._index/route";
import { loader as negotiation } from "../negotiations.$id/route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });

const status = async (p: Promise<unknown>) => ((await thrown(p)) as Response).status;

/** the negotiations list: the acting participant's negotiations from the embedded dataspace */
describe("negotiations", () => {
  it("lists the researcher's organisation's negotiations with the known states to filter by", async () => {
    const d = await load("researcher", "/negotiations");
    expect(d.error).toBeNull();
    expect(d.acting.participantId).toBeTruthy();
    expect(Array.isArray(d.negotiations)).toBe(true);
    expect(d.states).toEqual(expect.arrayContaining(["REQUESTED", "FINALIZED"]));
  });

  it("filters by state", async () => {
    const d = await load("researcher", "/negotiations?state=finalized");
    expect(d.stateFilter).toBe("FINALIZED");
    for (const n of d.negotiations) expect(n.state).toBe("FINALIZED");
  });

  it("lists every participant's negotiations for the operator, each with the participant holding it", async () => {
    const every = await load("admin", "/negotiations?participant=all");
    expect(every.error).toBeNull();
    expect(every.across).toBe("all");
    const one = await load("admin", "/negotiations");
    const perParticipant = [];
    for (const c of one.acting.choices) {
      const d = await load("admin", `/negotiations?participant=${encodeURIComponent(c.participantId)}`);
      perParticipant.push(...d.negotiations.map((n) => `${c.participantId} ${n.id}`));
    }
    expect(every.negotiations.map((n) => `${n.heldBy} ${n.id}`).sort()).toEqual(perParticipant.sort());
    expect(new Set(every.negotiations.map((n) => n.heldBy)).size).toBeGreaterThan(1);
    for (const n of every.negotiations) expect(n.heldByName).not.toBe("");
    // a member asking for every participant gets 403, as for any context not theirs
    expect(await status(load("researcher", "/negotiations?participant=all"))).toBe(403);
  });

  it("refuses the regulator with 403", async () => {
    expect(await status(load("regulator", "/negotiations"))).toBe(403);
  });

  it("titles each negotiation and transfer with the asset's and the counter-party's names, ids only beside them", async () => {
    const d = await load("researcher", "/negotiations");
    expect(d.negotiations.length).toBeGreaterThan(0);
    for (const n of d.negotiations) {
      expect(n.title).toMatch(/^.+ with .+$/);
      expect(n.title).not.toContain(n.id);
      expect(n.title).not.toContain(n.assetId);
      expect(n.assetName).not.toBe(n.assetId);
    }
    const demo = d.negotiations.find((n) => n.id === "negotiation-demo-pharmaco-alpha-001")!;
    expect(demo.title).toBe("FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin");
    const t = (await transfers({
      request: await h.request("researcher", "/transfers"),
      context: h.context,
      params: {},
    })) as { transfers: { title: string; id: string; assetId: string }[] };
    expect(t.transfers.length).toBeGreaterThan(0);
    for (const x of t.transfers) {
      expect(x.title).toMatch(/ with /);
      expect(x.title).not.toContain(x.assetId);
    }
    const one = await negotiation({
      request: await h.request("researcher", `/negotiations/${demo.id}`),
      context: h.context,
      params: { id: demo.id },
    });
    expect(one.negotiation.title).toBe(demo.title);
  });

  it("shows each organisation only its own negotiations, never itself as the counter-party", async () => {
    const own: Record<string, string> = {
      researcher: "PharmaCo Research AG",
      clinic: "AlphaKlinik Berlin",
      lmc: "Limburg Medical Centre",
    };
    const demoIds = new Set<string>();
    for (const [persona, organisation] of Object.entries(own)) {
      const d = await load(persona, "/negotiations");
      for (const n of d.negotiations) {
        expect(n.counterPartyName, `${persona} ${n.id}`).not.toBe(organisation);
        if (n.demo) {
          // a demonstration negotiation is listed once, in its own participant's list
          expect(demoIds.has(n.id), `${n.id} listed for a second organisation`).toBe(false);
          demoIds.add(n.id);
        }
      }
    }
    // the operator looking at one participant sees that participant's records only
    const alpha = await load("admin", "/negotiations?participant=alphaklinik-berlin");
    // (PharmaCo's records, held in its context; AlphaKlinik's provider side of their contract is its own)
    expect(alpha.negotiations.filter((n) => n.id.startsWith("negotiation-demo-pharmaco-"))).toEqual([]);
  });
});
