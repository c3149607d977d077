import type { Services } from "../../server/services";
import { personaCards } from "./personas.server";

type Participant = { displayName?: unknown; participantId?: unknown; role?: unknown; state?: unknown };

/**
 * What the public landing page shows: the data space at a glance, as aggregates of public records
 * only (the dataset catalogue's metadata, the participants' names and roles, the access body's
 * public register); nothing about any person. The persona picker only where this deployment has
 * demonstration accounts: the embedded identity provider (live) or static mode.
 */
export async function landingFacts(services: Services) {
  const [datasets, participants, register] = await Promise.all([
    services.catalogue.list(),
    services.dataspace.listParticipants() as Promise<Participant[]>,
    services.accessBody.register(),
  ]);
  const perPublisher = new Map<string, number>();
  for (const d of datasets) {
    const publisher = d.publisher ?? "Publisher not stated";
    perPublisher.set(publisher, (perPublisher.get(publisher) ?? 0) + 1);
  }
  const mode = services.config.appMode === "static" ? "static" : services.embeddedIdp ? "embedded" : null;
  return {
    accessBody: register.accessBody.name,
    datasets: {
      total: datasets.length,
      // datasets per publishing organisation, most first
      byPublisher: [...perPublisher]
        .map(([publisher, n]) => ({ publisher, datasets: n }))
        .sort((a, b) => b.datasets - a.datasets || a.publisher.localeCompare(b.publisher)),
      personalData: datasets.filter((d) => d.personalData).length,
    },
    participants: participants
      .filter((p) => p.state === undefined || p.state === "ACTIVATED")
      .map((p) => ({ name: String(p.displayName ?? p.participantId ?? ""), role: String(p.role ?? "") }))
      .filter((p) => p.name)
      .sort((a, b) => a.name.localeCompare(b.name)),
    register: {
      permits: register.permits.length,
      activePermits: register.permits.filter((p) => p.state === "ACTIVE").length,
      applications: register.applications.length,
      dataRequests: register.dataRequests.length,
    },
    // the demonstration personas and how each starts, or null (a real identity provider)
    demo: mode
      ? {
          mode,
          personas: personaCards(),
        }
      : null,
  };
}

export type LandingFacts = Awaited<ReturnType<typeof landingFacts>>;
