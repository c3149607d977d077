import { describe, expect, it } from "vitest";
import { ADMIN, CLINIC, RESEARCHER, seededInsightPerFile } from "../../tests/support/insight";
import { holderName } from "../analytics";
import { linked } from "../graph";
import type { SessionUser } from "../auth/user";
import { buildOmopIndex } from "../analytics/omop-index";
import { createGraphService, readerOf } from "../graph/service";
import { isSmall } from "../federated/suppression";
import { patientNumberOfId } from "../privacy/ids";
import { createCatalogueService } from "./service";

/**
 * A dataset's recordCount, shown to a caller bound by k, pins no suppressed cell (decision 0093,
 * amended 1 Dec): neither a count from 1 to k−1 nor, by a cohort total the federated summary or the
 * question service publishes, a holder's cell that they suppress.
 */
const catalogueOf = (insight: ReturnType<typeof seededInsightPerFile>) =>
  createCatalogueService(insight.graph, () => insight.federated.withheldCounts());

describe("catalogue recordCount against the federated and question answers (200 patients)", () => {
  const insight = seededInsightPerFile(200);

  it("no published count, with a published cohort total, gives a holder cell from 1 to k−1", async () => {
    const index = await buildOmopIndex(insight.graph);
    const shown = await catalogueOf(insight).list(RESEARCHER);
    const findings: string[] = [];
    let pairs = 0;
    for (const d of shown) {
      const members = new Set<number>();
      for (const p of await linked(insight.graph, d.id, "INCLUDES", "out", 1e7))
        members.add(index.indexOfPerson.get(patientNumberOfId(p.id)!)!);
      for (const [code, { persons }] of index.conditions) {
        const cell = persons.filter((i) => index.persons[i].holder === d.holder);
        if (!members.size || cell.length !== members.size || !cell.every((i) => members.has(i))) continue;
        pairs++;
        if (d.recordCount === undefined) continue;
        const fed = await insight.federated.summary(new URLSearchParams({ condition: code }), RESEARCHER);
        const nlq = await insight.nlq.ask({ question: `Where are patients with ${code} held?` }, RESEARCHER);
        const total = Number(/^(\d+) patients/.exec(nlq.interpretation)?.[1] ?? fed.cohort.count ?? NaN);
        const row = nlq.rows.find((r) => r.holder === holderName(d.holder!));
        if (
          isSmall(total - d.recordCount, 5) ||
          (fed.cohort.count !== null && isSmall(fed.cohort.count - d.recordCount, 5))
        )
          findings.push(`${d.id} × ${code}: ${total} − ${d.recordCount}`);
        if (row && row.patients === null)
          findings.push(`${d.id} × ${code}: pins the suppressed question row`);
      }
    }
    expect(pairs).toBeGreaterThan(0);
    expect(findings).toEqual([]);
  });
});

describe("catalogue recordCount under k (20 patients)", () => {
  const insight = seededInsightPerFile(20);

  it("a count from 1 to k−1 is withheld from a data user, exact for its holder and the operator", async () => {
    const catalogue = catalogueOf(insight);
    const exact = new Map((await catalogue.list(ADMIN)).map((d) => [d.id, d]));
    const small = [...exact.values()].filter((d) => isSmall(d.recordCount ?? 0, 5));
    expect(small.length).toBeGreaterThan(0);
    for (const d of await catalogue.list(RESEARCHER)) expect(isSmall(d.recordCount ?? 0, 5)).toBe(false);
    const clinic = new Map((await catalogue.list(CLINIC)).map((d) => [d.id, d]));
    for (const d of small) {
      expect((await catalogue.get(d.id, RESEARCHER))?.recordCount).toBeUndefined();
      if (d.holder === "alphaklinik-berlin") expect(clinic.get(d.id)?.recordCount).toBe(d.recordCount);
      else expect(clinic.get(d.id)?.recordCount).toBeUndefined();
    }
    expect(small.some((d) => d.holder === "alphaklinik-berlin")).toBe(true);
  });

  it("the graph shows a dataset node's recordCount only to its holder, the access body and the operator", async () => {
    const graph = createGraphService(insight.graph);
    const id = "dataset-alphaklinik-mental-health";
    const stored = (await insight.graph.getNode(id))!.properties.recordCount as number;
    expect(isSmall(stored, 5)).toBe(true);
    const shownTo = async (user: SessionUser) =>
      (await graph.expand(id, 1, readerOf(user))).nodes.find((n) => n.id === id)?.properties.recordCount;
    expect(await shownTo(RESEARCHER)).toBeUndefined();
    expect(await shownTo(CLINIC)).toBe(stored);
    expect(await shownTo(ADMIN)).toBe(stored);
    expect((await graph.node(id, readerOf(RESEARCHER))).properties.recordCount).toBeUndefined();
  });
});
