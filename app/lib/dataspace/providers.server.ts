import type { AppLoadContext } from "@remix-run/node";
import type { Acting, ParticipantChoice } from "./access.server";

/**
 * The providers a consumer can negotiate with: the participant contexts of the own connector and the
 * dataspace's participant directory (the operator's record of who takes part and where their DSP
 * catalogue is: a runtime-scoped connector such as EDC 0.15 has no contexts for the others), one per
 * DID (the connector's context first), without the acting participant itself. A directory entry is
 * chosen by its directory id, or by its DID when a context already goes by that id.
 */
export async function providerChoices(
  context: AppLoadContext,
  participants: readonly ParticipantChoice[],
  acting: Pick<Acting, "participantId" | "did">,
): Promise<ParticipantChoice[]> {
  const own = (p: { participantId: string; did: string }) =>
    p.participantId === acting.participantId || (!!acting.did && p.did === acting.did);
  const providers = participants.filter((p) => p.did && !own(p));
  const dids = new Set(participants.map((p) => p.did));
  const ids = new Set(participants.map((p) => p.participantId));
  // a directory that cannot be read leaves the connector's contexts to choose from
  const entries = await context.services.operator.directory().catch(() => []);
  for (const e of entries) {
    if (dids.has(e.did)) continue;
    const choice: ParticipantChoice = {
      participantId: ids.has(e.id) ? e.did : e.id,
      displayName: e.displayName,
      role: "",
      did: e.did,
      state: "ACTIVATED",
      demo: false,
    };
    dids.add(e.did);
    ids.add(choice.participantId);
    if (!own(choice)) providers.push(choice);
  }
  return providers;
}
