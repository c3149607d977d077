/**
 * The overview's cards read from the graph: the data holder's patients (the total /patients shows,
 * with the same count). Contracts, permits, datasets and the patient's record are counted from the
 * lists they link to (list-signals.ts, access-body-signals.ts), not from the graph's marketplace layer.
 */
import type { Role } from "../auth/personas";
import { organisationOf, type SessionUser } from "../auth/user";
import type { GraphStore } from "../graph";
import { signal, type OverviewSignal } from "./model";

export async function graphSignals(
  graph: GraphStore,
  persona: Role,
  user: SessionUser,
): Promise<OverviewSignal[]> {
  if (persona !== "DATA_HOLDER") return [];
  const org = user.roles.includes(persona) ? organisationOf(user) : undefined;
  // the same count /patients shows as its total
  const patients = await graph.countWhere("Patient", org ? { holder: org.slug } : undefined);
  return [signal("graph", "patients", "Patients whose records you hold", patients, "info", "/patients")];
}
