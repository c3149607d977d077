import { describe, expect, it } from "vitest";
import { Prng } from "../graph/synthetic/prng";
import { findDisclosures } from "./audit";
import fc from "fast-check";
import { isSmall, protect, type CountNode } from "./suppression";

/** a random partition of `total` into `parts` cells, biased towards small cells */
function partition(rng: Prng, total: number, parts: number): number[] {
  const weights = Array.from({ length: parts }, () =>
    rng.chance(0.35) ? rng.next() * 0.08 : rng.chance(0.15) ? 0 : rng.next(),
  );
  const sum = weights.reduce((s, w) => s + w, 0) || 1;
  const cells = weights.map((w) => Math.floor((w / sum) * total));
  let rest = total - cells.reduce((s, c) => s + c, 0);
  while (rest-- > 0) cells[rng.int(0, parts - 1)]++;
  return cells;
}

/** a random count tree: a root with one to three groups, children that may have groups of their own, hidden complements */
function randomTree(rng: Prng, total: number, depth = 0): CountNode {
  const node: CountNode = { key: `n${depth}-${rng.int(0, 1e6)}`, value: total, groups: [] };
  const groupCount = depth === 0 ? rng.int(1, 3) : depth === 1 ? rng.int(0, 2) : 0;
  for (let g = 0; g < groupCount; g++) {
    const binary = rng.chance(0.35);
    const parts = binary ? 2 : rng.int(2, 8);
    const cells = partition(rng, total, parts);
    node.groups!.push(
      cells.map((v, i) => {
        if (binary && i === 1) return { key: `g${g}-hidden`, value: v, hidden: true };
        const child = rng.chance(0.4) ? randomTree(rng, v, depth + 1) : { key: "", value: v };
        child.key = `g${g}c${i}`;
        if (rng.chance(0.05)) child.forceSuppress = true;
        return child;
      }),
    );
  }
  return node;
}

function collect(node: CountNode, out: CountNode[] = []): CountNode[] {
  out.push(node);
  for (const g of node.groups ?? []) for (const c of g) collect(c, out);
  return out;
}

describe("k-anonymity engine (property)", () => {
  it("never lets a count in 1..k−1 be read or derived by subtraction, over 5,000 generated trees", () => {
    const rng = new Prng(4242, 1);
    let suppressedSeen = 0;
    let complementarySeen = 0;
    for (let i = 0; i < 5000; i++) {
      const k = rng.pick([5, 5, 5, 6, 7, 10, 11]);
      const total = rng.chance(0.2) ? rng.int(0, 3 * k) : rng.int(0, 400);
      const tree = protect(randomTree(rng, total), k);
      const leaks = findDisclosures(tree, k);
      if (leaks.length)
        throw new Error(`tree ${i} (k=${k}) leaks ${JSON.stringify(leaks[0])}: ${JSON.stringify(tree)}`);
      const nodes = collect(tree);
      for (const n of nodes) {
        // a protected cell is never alone in its equation
        if (n.suppressed && n.reason !== "parent-suppressed") suppressedSeen++;
        if (n.reason === "complementary") complementarySeen++;
      }
    }
    expect(suppressedSeen).toBeGreaterThan(1000);
    expect(complementarySeen).toBeGreaterThan(300);
  });

  it("publishes everything when no count is small", () => {
    const tree = protect(
      {
        key: "cohort",
        value: 100,
        groups: [
          [
            { key: "a", value: 60 },
            { key: "b", value: 40 },
          ],
          [
            { key: "f", value: 55 },
            { key: "m", value: 45 },
            { key: "x", value: 0 },
          ],
        ],
      },
      5,
    );
    expect(collect(tree).every((n) => !n.suppressed)).toBe(true);
  });

  it("suppresses the smallest other cell as the complement of a small one", () => {
    const tree = protect(
      {
        key: "cohort",
        value: 50,
        groups: [
          [
            { key: "a", value: 3 },
            { key: "b", value: 7 },
            { key: "c", value: 40 },
          ],
        ],
      },
      5,
    );
    const [a, b, c] = tree.groups![0];
    expect([a.suppressed, a.reason]).toEqual([true, "below-k"]);
    expect([b.suppressed, b.reason]).toEqual([true, "complementary"]);
    expect(c.suppressed).toBeFalsy();
  });

  it("hides a published subset whose hidden complement is small", () => {
    const tree = protect(
      {
        key: "uti",
        value: 30,
        groups: [
          [
            { key: "withDrug", value: 28 },
            { key: "without", value: 2, hidden: true },
          ],
        ],
      },
      5,
    );
    expect(tree.groups![0][0]).toMatchObject({ suppressed: true, reason: "complementary" });
  });

  it("suppresses a small total and everything below it", () => {
    const tree = protect(
      {
        key: "cohort",
        value: 4,
        groups: [
          [
            { key: "a", value: 4 },
            { key: "b", value: 0 },
          ],
        ],
      },
      5,
    );
    expect(collect(tree).every((n) => n.suppressed)).toBe(true);
  });

  it("keeps a differencing-guarded cell from being the only unknown of its group", () => {
    const tree = protect(
      {
        key: "cohort",
        value: 70,
        groups: [
          [
            { key: "a", value: 40, forceSuppress: true },
            { key: "b", value: 30 },
          ],
        ],
      },
      5,
    );
    expect(tree.groups![0].map((c) => c.reason)).toEqual(["differencing", "complementary"]);
  });

  it("the auditor catches what primary suppression alone would leak", () => {
    const tree: CountNode = {
      key: "cohort",
      value: 50,
      groups: [
        [
          { key: "a", value: 3, suppressed: true },
          { key: "b", value: 47 },
        ],
      ],
    };
    expect(findDisclosures(tree, 5)).toEqual([{ how: "cohort − [b] (group 0)", value: 3 }]);
    const hidden: CountNode = {
      key: "uti",
      value: 30,
      groups: [
        [
          { key: "withDrug", value: 28 },
          { key: "without", value: 2, hidden: true },
        ],
      ],
    };
    expect(findDisclosures(hidden, 5).map((d) => d.value)).toEqual([2]);
  });

  it("refuses k below 5", () => {
    expect(() => protect({ key: "x", value: 10 }, 4)).toThrow(/at least 5/);
  });
});

/**
 * Rule 5 (decision 0093): the comparison of a measurement in a cohort against all other patients,
 * whose measured counts and range flags are also parts of the totals the analytics dashboard
 * publishes. The adversary solves every equation of every root together (linear algebra over all
 * published numbers, not one group at a time): no unknown count it can pin down is in 1..k−1.
 */
describe("k-anonymity engine: cells shared with totals published elsewhere (property)", () => {
  const person = fc.record({
    cohort: fc.boolean(),
    measured: fc.boolean(),
    flag: fc.constantFrom(0, 1, 2),
    small: fc.boolean(),
  });
  /** the measurement comparison's trees, as server/nlq/templates.ts builds them */
  function comparison(people: { cohort: boolean; measured: boolean; flag: number }[], noValue: number) {
    const of = (cohort: boolean) => people.filter((p) => p.cohort === cohort);
    const group = (key: string, members: typeof people): CountNode => {
      const m = members.filter((p) => p.measured);
      const flags = [0, 1, 2].map((f) => ({
        key: `${key}:f${f}`,
        value: m.filter((p) => p.flag === f).length,
      }));
      const measured: CountNode = { key: `${key}:m`, value: m.length, groups: [flags] };
      return {
        key,
        value: members.length,
        groups: [[measured, { key: `${key}:u`, value: members.length - m.length, hidden: true }]],
      };
    };
    const c = group("c", of(true));
    const o = group("o", of(false));
    const parts = (key: string, cells: CountNode[], rest = 0): CountNode => ({
      key,
      value: cells.reduce((s, x) => s + x.value, 0) + rest,
      groups: [[...cells, { key: `${key}:rest`, value: rest, hidden: true }]],
    });
    const [cm, om] = [c, o].map((g) => g.groups![0][0]);
    return [
      { key: "persons", value: people.length, groups: [[c, o]] },
      parts("M", [cm, om], noValue),
      ...[0, 1, 2].map((f) => parts(`F${f}`, [cm.groups![0][f], om.groups![0][f]])),
    ];
  }
  /** the unknowns the published equations determine, by rank (Gaussian elimination) */
  function determined(roots: CountNode[]): CountNode[] {
    const unknowns: CountNode[] = [];
    const equations: Map<CountNode, number>[] = [];
    const seen = new Set<CountNode>();
    const walk = (n: CountNode) => {
      if (seen.has(n)) return;
      seen.add(n);
      if (n.suppressed || n.hidden) unknowns.push(n);
      for (const g of n.groups ?? []) {
        equations.push(new Map([[n, -1], ...g.map((x) => [x, 1] as const)]));
        g.forEach(walk);
      }
    };
    roots.forEach(walk);
    const rows = equations.map((e) => unknowns.map((u) => e.get(u) ?? 0));
    const rank = (m: number[][]) => {
      const a = m.map((r) => [...r]);
      let r = 0;
      for (let col = 0; col < unknowns.length && r < a.length; col++) {
        const p = a.findIndex((row, i) => i >= r && Math.abs(row[col]) > 1e-9);
        if (p < 0) continue;
        [a[r], a[p]] = [a[p], a[r]];
        for (let i = 0; i < a.length; i++)
          if (i !== r && Math.abs(a[i][col]) > 1e-9) {
            const f = a[i][col] / a[r][col];
            a[i] = a[i].map((v, j) => v - f * a[r][j]);
          }
        r++;
      }
      return r;
    };
    const base = rank(rows);
    return unknowns.filter((_, i) => rank([...rows, unknowns.map((_, j) => (i === j ? 1 : 0))]) === base);
  }

  it("no count in 1..k−1 is determined by the comparison and the totals together", () => {
    let protectedCells = 0;
    fc.assert(
      fc.property(
        fc.array(person, { maxLength: 60 }),
        fc.nat(3),
        fc.constantFrom(5, 6),
        (raw, noValue, k) => {
          // small groups are the interesting ones: most people outside the cohort or unmeasured
          const people = raw.map((p) => (p.small ? { ...p, cohort: false } : p));
          const roots = protect(comparison(people, noValue), k);
          for (const n of determined(roots))
            expect({ key: n.key, small: isSmall(n.value, k) }).toEqual({ key: n.key, small: false });
          protectedCells += roots.flatMap((r) => r.groups![0]).filter((n) => n.suppressed).length;
        },
      ),
      { numRuns: 2000, seed: 93 },
    );
    expect(protectedCells).toBeGreaterThan(100);
  });

  it("a complementary cell shared with a published total is not left alone in it", () => {
    // 9 in the cohort, 7 measured: its 2 unmeasured hide the 7; the total's other part hides it in turn
    const [persons, measured] = protect(
      comparison(
        [
          ...Array.from({ length: 9 }, (_, i) => ({ cohort: true, measured: i < 7, flag: 1 })),
          ...Array.from({ length: 30 }, () => ({ cohort: false, measured: true, flag: 1 })),
        ],
        0,
      ),
      5,
    );
    const [cm, om] = measured.groups![0];
    expect(persons.groups![0][0].suppressed).toBeFalsy();
    expect([cm.reason, om.reason]).toEqual(["complementary", "complementary"]);
  });
});
