import type { GraphStore } from "../graph";
import { IDENTIFIED, type Viewer } from "./policy";
import { createPseudonymiser, createRedactor, type PatientDirectory, type Redactor } from "./redact";
import { patientNumberOfId } from "./ids";

/**
 * The population as the redaction needs it (patient number → holder, pseudonym → number), read
 * from the graph store once per graph version, and redactors for viewers built on it.
 */

export const MAX_DIRECTORY_PATIENTS = 10_000_000;

export interface Minimiser {
  /** a redactor for the viewer over the current graph version */
  redactor(viewer: Viewer): Promise<Redactor>;
}

export function createMinimiser(store: GraphStore, secret: string): Minimiser {
  const psn = createPseudonymiser(secret);
  let built: { version: number; dir: PatientDirectory } | null = null;
  let pending: Promise<PatientDirectory> | null = null;

  async function build(): Promise<PatientDirectory> {
    const version = store.version();
    const holders = new Map<number, string>();
    const byPseudonym = new Map<string, number>();
    for (const p of await store.findNodes({ label: "Patient", limit: MAX_DIRECTORY_PATIENTS })) {
      const n = patientNumberOfId(p.id);
      if (n === undefined) continue;
      const holder = p.properties.holder;
      if (typeof holder === "string") holders.set(n, holder);
      byPseudonym.set(psn.of(n), n);
    }
    const dir: PatientDirectory = {
      holderOf: (n) => holders.get(n),
      numberOf: (p) => byPseudonym.get(p),
    };
    built = { version, dir };
    return dir;
  }

  async function directory(): Promise<PatientDirectory> {
    if (built?.version === store.version()) return built.dir;
    pending ??= build().finally(() => (pending = null));
    return pending;
  }

  return {
    async redactor(viewer) {
      if (viewer.identities === "all" && viewer.key === IDENTIFIED.key) {
        // the operator reads everything: no directory needed
        return createRedactor(viewer, psn, { holderOf: () => undefined, numberOf: () => undefined });
      }
      return createRedactor(viewer, psn, await directory());
    },
  };
}
