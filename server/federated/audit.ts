/**
 * An adversary's view of a protected count tree, used by the property tests and as a run-time
 * self-check of every federated answer: it derives every count it can from what is published —
 * the published numbers themselves and, for each group whose parent is known, the parent minus
 * any subset of the published cells — and reports any derived count in 1..k−1.
 */
import { isSmall, type CountNode } from "./suppression";

export interface Disclosure {
  /** which published total or subtotal, and which published cells were subtracted */
  how: string;
  value: number;
}

/** the number the adversary sees: null when suppressed or hidden */
function seen(n: CountNode): number | null {
  return n.suppressed || n.hidden ? null : n.value;
}

export function findDisclosures(root: CountNode, k: number, maxSubsetCells = 14): Disclosure[] {
  const found: Disclosure[] = [];
  const walk = (node: CountNode, path: string) => {
    const p = seen(node);
    if (p !== null && isSmall(p, k)) found.push({ how: `${path} published`, value: p });
    for (const [gi, group] of (node.groups ?? []).entries()) {
      if (p !== null) {
        const visible = group.filter((c) => seen(c) !== null);
        const hiddenOrSuppressed = group.length - visible.length;
        if (visible.length > maxSubsetCells)
          throw new Error(`group of ${visible.length} published cells is too large to audit`);
        // parent − Σ(subset of published cells), for every subset
        for (let mask = 0; mask < 1 << visible.length; mask++) {
          let v = p;
          const used: string[] = [];
          for (let i = 0; i < visible.length; i++) {
            if (mask & (1 << i)) {
              v -= visible[i].value;
              used.push(visible[i].key);
            }
          }
          // subtracting every published cell of a group without unknowns leaves 0: nothing learnt
          if (hiddenOrSuppressed === 0 && used.length === visible.length) continue;
          if (isSmall(v, k)) found.push({ how: `${path} − [${used.join(", ")}] (group ${gi})`, value: v });
        }
      }
      for (const c of group) walk(c, `${path}/${c.key}`);
    }
  };
  walk(root, root.key);
  return found;
}
