/**
 * k-anonymity for published counts: primary suppression, complementary suppression and the
 * differencing guard, over a tree of counts. Used by the federated cohort summary, the
 * natural-language answers and the analytics dashboard (for callers whose ODRL scope sets k).
 *
 * ## The model
 *
 * An answer is a tree of counts. Every node is a count of patients; every "group" under a node
 * is a complete partition of that node (the children's values add up to the parent's value:
 * holders partition a cohort, genders partition it, age bands partition it, "with drug" and
 * "without drug" partition it). The adversary knows the tree's shape, every published number,
 * that counts are non-negative integers, and every equation `parent = Σ group`. A child may be
 * `hidden`: it is never displayed, but it is still derivable by subtraction (the "without drug"
 * complement of a published "with drug" count); hidden nodes are leaves.
 *
 * ## The rules
 *
 * 1. Primary suppression: every displayed count in 1..k−1 is suppressed ("below-k"). Zero is
 *    published: it discloses no one.
 * 2. Inheritance: when a node is suppressed, its whole subtree is suppressed ("parent-suppressed");
 *    otherwise a fully published group would give the node back as the sum of its children.
 * 3. Complementary suppression, per group whose parent is published. Let U be the group's unknown
 *    cells (suppressed or hidden) and S their sum, which the adversary derives as
 *    `parent − Σ published cells`. While S is in 1..k−1, or U is a single cell that must stay
 *    unknown (a differencing-guarded cell), the smallest non-zero published cell of the group is
 *    suppressed too ("complementary"); zero cells are the last resort. Afterwards S is 0 or ≥ k,
 *    and every protected cell shares its equation with at least one other unknown.
 * 4. Differencing guard (cross-query): callers mark a cell `forceSuppress` when the same cell in a
 *    query with one criterion fewer differs from it by 1..k−1 (federated/service.ts); such a cell
 *    is suppressed and then protected like a primary one.
 * 5. Totals published elsewhere: an answer may pass several roots that share cells, when a cell is
 *    also part of a total that another answer publishes (a measurement's persons on the analytics
 *    dashboard: the cohort's and the other patients' measured counts are its parts). The rules run
 *    over every root until nothing more is suppressed, and a suppressed cell that sits in more than
 *    one group is never the only unknown of any of them (like a differencing-guarded cell), so it
 *    cannot be recomputed from one total and then subtracted from another. Neither can a statistic
 *    of it (a mean): its complement in every total is suppressed with it, statistics and all.
 *    docs/decisions/0093-row-presence-k-anonymity.md
 *
 * ## Why this is exact
 *
 * Every count sits in exactly one equation as a child (the tree), and a suppressed node's own
 * equations contain only unknowns (rule 2). So the linear system splits into independent
 * equations, one per group, and what an adversary can derive from a group is exactly: published
 * cells, and sums `parent − Σ(any subset of published cells)` = S + (published cells left out).
 * Published cells are 0 or ≥ k, and S is 0 or ≥ k (rule 3), so no derivable count lies in 1..k−1,
 * and no single unknown cell is ever alone in its equation (rule 3 again). The property tests
 * (suppression.test.ts, service.test.ts) attack thousands of generated answers by brute force
 * over every subset of every group.
 *
 * Not published on purpose: cross-tabulations (holder × gender). A two-way table with both margins
 * links rows and columns, so a suppressed cell can be bounded or recovered from a combination of
 * row and column equations, which needs linear programming to audit. The federated summary
 * publishes one-way partitions of the cohort instead (a star of independent groups).
 */
import { z } from "zod";

/** the algorithm's marks: protectGroup() tells a primary from a complementary suppression */
export type SuppressionReason = "below-k" | "complementary" | "parent-suppressed" | "differencing";

/**
 * The reasons a caller is told. A primary ("below-k") and a complementary suppression are published
 * alike ("small-count"): told apart, two suppressed siblings and their published total would say which
 * of them is the small one, which is what complementary suppression hides (statistical offices mark
 * both with one symbol for the same reason).
 */
export const publicSuppressionReason = z.enum(["small-count", "parent-suppressed", "differencing"]);
export type PublicSuppressionReason = z.infer<typeof publicSuppressionReason>;

/** the one mapping from the algorithm's marks to what is published (published(), the questions' cells) */
export function publicReason(reason: SuppressionReason | PublicSuppressionReason): PublicSuppressionReason {
  return reason === "below-k" || reason === "complementary" ? "small-count" : reason;
}

export interface CountNode {
  key: string;
  /** the true count: only published when the node is not suppressed */
  value: number;
  /** never displayed, but derivable by subtraction; hidden nodes are leaves */
  hidden?: boolean;
  /** suppress whatever the value (the differencing guard; a count of records of fewer than k patients) */
  forceSuppress?: boolean;
  /** each group is a complete partition of this node */
  groups?: CountNode[][];
  /** set by protect() */
  suppressed?: boolean;
  reason?: SuppressionReason;
}

/** the smallest k the service accepts, whatever is configured or asked for */
export const MIN_K = 5;

export function isSmall(value: number, k: number): boolean {
  return value >= 1 && value <= k - 1;
}

function mark(node: CountNode, reason: SuppressionReason): void {
  if (node.suppressed) return;
  node.suppressed = true;
  node.reason = reason;
}

/** every node of the trees, each before its groups' nodes (a shared node once per group it is in) */
export function nodesOf(...roots: CountNode[]): CountNode[] {
  const out: CountNode[] = [];
  const walk = (n: CountNode) => {
    out.push(n);
    for (const g of n.groups ?? []) g.forEach(walk);
  };
  roots.forEach(walk);
  return out;
}

function markSubtree(node: CountNode): void {
  for (const g of node.groups ?? []) for (const c of nodesOf(...g)) mark(c, "parent-suppressed");
}

function resetMarks(node: CountNode): void {
  for (const n of nodesOf(node)) {
    n.suppressed = false;
    n.reason = undefined;
  }
}

class Unprotectable extends Error {}

function protectGroup(group: CountNode[], k: number, shared: Set<CountNode>): void {
  for (const c of group) {
    if (c.hidden) {
      if (c.groups?.length) throw new Error(`hidden count ${c.key} must be a leaf`);
      continue;
    }
    if (isSmall(c.value, k)) mark(c, "below-k");
    else if (c.forceSuppress && c.value > 0) mark(c, "differencing");
  }
  for (;;) {
    const unknown = group.filter((c) => c.suppressed || c.hidden);
    const sum = unknown.reduce((s, c) => s + c.value, 0);
    // a hidden 0 is cover only when nothing else is left
    const alone = unknown.filter((c) => c.suppressed || c.value > 0);
    const guardedAlone =
      alone.length === 1 &&
      !!alone[0].suppressed &&
      (alone[0].reason === "differencing" || shared.has(alone[0]));
    if (unknown.length === 0 || (!isSmall(sum, k) && !guardedAlone)) return;
    const published = group.filter((c) => !c.suppressed && !c.hidden);
    const candidate = pickSmallest(published.filter((c) => c.value > 0)) ?? pickSmallest(published);
    if (!candidate && !isSmall(sum, k) && unknown.length > 1) return; // a hidden 0: the last cover
    if (!candidate) throw new Unprotectable();
    mark(candidate, "complementary");
  }
}

function pickSmallest(cells: CountNode[]): CountNode | undefined {
  let best: CountNode | undefined;
  for (const c of cells) {
    if (!best || c.value < best.value || (c.value === best.value && c.key < best.key)) best = c;
  }
  return best;
}

function visit(node: CountNode, k: number, shared: Set<CountNode>): void {
  if (node.suppressed) {
    markSubtree(node);
    return;
  }
  for (const group of node.groups ?? []) {
    protectGroup(group, k, shared);
    for (const child of group) visit(child, k, shared);
  }
}

export function leaf(key: string, value: number, hidden = false): CountNode {
  return hidden ? { key, value, hidden } : { key, value };
}

/**
 * A total of which `parts` are cells, the rest hidden: a root of its own, or a total another answer
 * publishes (a concept's persons on the analytics dashboard, a gender's persons, a federated or another
 * template's count), so protect() keeps each part's complement in it from being small and a suppressed
 * part from being recomputed from it (rule 5).
 */
export function partsOf(key: string, total: number, parts: CountNode[]): CountNode {
  const rest = total - parts.reduce((s, p) => s + p.value, 0);
  return { key, value: total, groups: [[...parts, leaf(`${key}:rest`, rest, true)]] };
}

/** the nodes that are a child in more than one group */
function sharedNodes(roots: CountNode[]): Set<CountNode> {
  const seen = new Set<CountNode>();
  const shared = new Set<CountNode>();
  const walk = (n: CountNode) => {
    for (const g of n.groups ?? [])
      for (const c of g) {
        if (seen.has(c)) shared.add(c);
        else seen.add(c);
        walk(c);
      }
  };
  roots.forEach(walk);
  return shared;
}

/** how many cells of the trees are suppressed: the measure of protect()'s fixpoint */
const suppressedIn = (roots: CountNode[]) => nodesOf(...roots).filter((c) => c.suppressed).length;

/**
 * Applies the rules to the tree in place, or to several trees that share cells (rule 5) until no
 * more is suppressed. When a group cannot be protected (no cell left to suppress), the whole answer
 * is suppressed: safe, and it does not happen with complete partitions.
 */
export function protect(tree: CountNode, k: number): CountNode;
export function protect(trees: CountNode[], k: number): CountNode[];
export function protect(tree: CountNode | CountNode[], k: number): CountNode | CountNode[] {
  if (!Number.isInteger(k) || k < MIN_K) throw new Error(`k must be an integer of at least ${MIN_K}`);
  const roots = [tree].flat();
  if (roots.some((r) => r.hidden)) throw new Error("the root count cannot be hidden");
  const shared = sharedNodes(roots);
  roots.forEach(resetMarks);
  for (const root of roots)
    if (isSmall(root.value, k)) mark(root, "below-k");
    else if (root.forceSuppress && root.value > 0) mark(root, "differencing");
  try {
    for (let before = -1, now = suppressedIn(roots); before !== now; now = suppressedIn(roots)) {
      before = now;
      for (const root of roots) visit(root, k, shared);
    }
  } catch (e) {
    if (!(e instanceof Unprotectable)) throw e;
    roots.forEach(resetMarks);
    for (const root of roots) {
      mark(root, "complementary");
      markSubtree(root);
    }
  }
  return tree;
}

/**
 * Whether a row that is there only because its count is not zero (a condition that occurs in the
 * cohort, the "unknown" age band) may be listed: only when that count is published and not zero.
 * Left out, not listed with "<k": its presence alone would say that someone in the cohort has it,
 * and its place in a list ordered by count would rank it. Rows of a fixed list (every holder) are
 * always listed (decision 0093).
 */
export function listable(node: CountNode): boolean {
  return !node.suppressed && node.value > 0;
}

/** What a client sees of a count. */
export const publishedCount = z.object({
  key: z.string(),
  count: z.number().int().min(0).nullable().describe("null when suppressed"),
  suppressed: z.boolean(),
  reason: publicSuppressionReason
    .optional()
    .describe(
      '"small-count" for a count from 1 to k−1 and for one suppressed so that such a count cannot be recomputed, alike',
    ),
  display: z
    .string()
    .describe(
      'the count, or "<k or withheld" when suppressed: a count from 1 to k−1 and one withheld to protect it read alike',
    ),
});
export type PublishedCount = z.infer<typeof publishedCount>;

/**
 * The one place a count is published: its reason told by publicReason(), its display one text true of both
 * kinds alike, a count from 1 to k−1 and one withheld so that such a count cannot be recomputed (that may be k
 * or more): "<k or withheld", short for a table cell (the questions say it at length, server/nlq/execute.ts).
 */
export function published(node: CountNode, k: number | null): PublishedCount {
  if (node.suppressed)
    return {
      key: node.key,
      count: null,
      suppressed: true,
      reason: node.reason && publicReason(node.reason),
      display: `<${k ?? MIN_K} or withheld`,
    };
  return { key: node.key, count: node.value, suppressed: false, display: String(node.value) };
}

export function countSuppressed(root: CountNode): Record<SuppressionReason, number> {
  const out: Record<SuppressionReason, number> = {
    "below-k": 0,
    complementary: 0,
    "parent-suppressed": 0,
    differencing: 0,
  };
  for (const n of nodesOf(root)) if (n.suppressed && n.reason && !n.hidden) out[n.reason]++;
  return out;
}

/** Plain-language statement of the rules, for answers and views. */
export function suppressionRule(k: number): string {
  return (
    `Counts from 1 to ${k - 1} are suppressed (k = ${k}); so is any further count that would let a suppressed one be ` +
    `recomputed by subtraction from a published total or subtotal (complementary suppression), and any count that differs ` +
    `by 1 to ${k - 1} from the same count of the query with one criterion fewer. Zero is shown.`
  );
}
