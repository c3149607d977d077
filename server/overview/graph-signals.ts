/**
 * The overview's cards read from the graph: the data holder's patients (the total /patients shows,
 * with the same count). Contracts, permits, datasets and the patient's record are counted from the
 * lists they link to (list-signals.ts, access-body-signals.ts), not from the graph's marketplace layer.
 */
import type { Role } from "../auth/personas";
import { organisationOf, type SessionUser } from "../auth/user";
import type { GraphStore } from "../graph";
import { signal, type OverviewSignal, type Tone } from "./model";

export async function graphSignals(
  graph: GraphStore,
  persona: Role,
  user: SessionUser,
): Promise<OverviewSignal[]> {
  const org = user.roles.includes(persona) ? organisationOf(user) : undefined;
  const s = (id: string, label: string, value: number, tone: Tone, detail?: string, href?: string) =>
    signal("graph", id, label, value, tone, href, detail);

  switch (persona) {
    case "DATA_HOLDER": {
      // the same count /patients shows as its total
      const patients = org
        ? await graph.countWhere("Patient", { holder: org.slug })
        : await graph.countWhere("Patient");
      return [s("patients", "Patients whose records you hold", patients, "info", undefined, "/patients")];
    }
    default:
      return [];
  }
}
