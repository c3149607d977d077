import type { GraphStore } from "../graph";
import { createKept, EVERYONE } from "../http/kept";
import { IDENTIFIED, type Viewer } from "./policy";
import { createPseudonymiser, createRedactor, type PatientDirectory } from "./redact";
import { patientNumberOfId } from "./ids";

/**
 * The population as the redaction needs it (patient number → holder, pseudonym → number), read
 * from the graph store once per graph version, and redactors for viewers built on it.
 */
export function createMinimiser(store: GraphStore, secret: string) {
  const psn = createPseudonymiser(secret);
  const kept = createKept<PatientDirectory>({ max: 1 });
  const directory = () =>
    kept({ caller: EVERYONE, versions: [store.version()] }, async () => {
      const holders = new Map<number, string>();
      const byPseudonym = new Map<string, number>();
      for (const p of await store.findNodes({ label: "Patient", limit: 10_000_000 })) {
        const n = patientNumberOfId(p.id);
        if (n === undefined) continue;
        const holder = p.properties.holder;
        if (typeof holder === "string") holders.set(n, holder);
        byPseudonym.set(psn.of(n), n);
      }
      return { holderOf: (n) => holders.get(n), numberOf: (p) => byPseudonym.get(p) };
    });

  return {
    /** a redactor for the viewer over the current graph version */
    async redactor(viewer: Viewer) {
      if (viewer.identities === "all" && viewer.key === IDENTIFIED.key) {
        // the operator reads everything: no directory needed
        return createRedactor(viewer, psn, { holderOf: () => undefined, numberOf: () => undefined });
      }
      return createRedactor(viewer, psn, await directory());
    },
  };
}
