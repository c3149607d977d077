import { createKeptByInputs, EVERYONE } from "../http/kept/kept";

/** what it reads of the dataspace (server/dataspace/index.ts Dataspace; restated: index imports this module) */
interface DataspaceReads {
  listParticipants(): Promise<Record<string, unknown>[]>;
  listNegotiations(participantId: string): Promise<readonly Record<string, unknown>[]>;
}

/** `?participant=` of the operator's list of every participant's negotiations (/negotiations) */
export const EVERY_PARTICIPANT = "all";

/** one negotiation and the participant whose connector holds it */
export interface HeldNegotiation {
  participantId: string;
  negotiation: Readonly<Record<string, unknown>>;
}

/**
 * Every participant's contract negotiations, each with the participant whose connector holds it: the
 * operator's list (/negotiations?participant=all) and its home card "Contracts across the dataspace"
 * read this one call (issue 40, one source per number). A negotiation between two participants of the
 * space is held twice, once by each side's connector (as consumer and as provider), and listed so.
 * A participant whose negotiations cannot be read fails the whole, as one participant's list would.
 */
export async function negotiationsAcross(ds: DataspaceReads): Promise<readonly HeldNegotiation[]> {
  const participants = await ds.listParticipants();
  const ids = participants.map((p) => String(p.participantId ?? p["@id"] ?? "")).filter(Boolean);
  const lists = await Promise.all(ids.map((participantId) => ds.listNegotiations(participantId)));
  // made once per set of lists (the kept answers of the participant and negotiation reads), frozen
  return keptAcross(EVERYONE, [participants, ...lists], () =>
    lists.flatMap((list, i) => list.map((negotiation) => ({ participantId: ids[i]!, negotiation }))),
  );
}

/** every participant's negotiations, kept by the identity of the lists they are made of (server/http/kept) */
const keptAcross = /* @__PURE__ */ createKeptByInputs<readonly HeldNegotiation[]>(16);
