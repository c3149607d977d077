import { knownOrganisation, slugOfDid } from "../dataspace-protocol";

/**
 * What a person reads for the ids of a connector record (issue 40, names not ids): the counter-party's
 * display name and the asset's name. One place, used by the task list (tasks.ts) and by the views'
 * records (app/lib/dataspace/records.server.ts).
 */

/** display names by DID and by participant context id */
export type NameBook = ReadonlyMap<string, string>;

/**
 * The counter-party's display name: the book, the built-in table of organisations, else the id itself;
 * without an id, the participant context its DSP address ends in (`…/<context id>/2025-1`); "unknown"
 * when there is neither.
 */
export function counterPartyName(id: string, address: string, book?: NameBook): string {
  if (id) return book?.get(id) ?? knownOrganisation(id, slugOfDid(id))?.displayName ?? id;
  const m = /\/([^/]+)\/2025-1\/?$/.exec(address);
  if (m) {
    const context = decodeURIComponent(m[1]);
    return book?.get(context) ?? knownOrganisation(undefined, context)?.displayName ?? context;
  }
  return address || "unknown";
}

/** asset names by asset id */
export type AssetBook = ReadonlyMap<string, string>;

type Groups = readonly { readonly assets: readonly Readonly<Record<string, unknown>>[] }[];

/** per grouped asset list (the kept, frozen answers of listAssetGroups): its book, made once */
const books = new WeakMap<Groups, AssetBook>();

/**
 * The names of every provider's assets (GET /api/assets, grouped), by asset id: an asset's `name`
 * (normalised: its `@id` when it has none); the first provider that names an id wins.
 */
export function assetNames(groups: Groups): AssetBook {
  let book = books.get(groups);
  if (book) return book;
  const names = new Map<string, string>();
  for (const g of groups)
    for (const a of g.assets) {
      const id = typeof a["@id"] === "string" ? a["@id"] : "";
      const name = typeof a.name === "string" && a.name ? a.name : id;
      if (id && !names.has(id)) names.set(id, name);
    }
  book = names;
  if (Object.isFrozen(groups)) books.set(groups, book);
  return book;
}

/** any participant list (the API's records or the views' typed ones): its fields are read defensively */
type Participants = readonly object[];

/** per participant list (the kept, frozen answers of listParticipants): its book, made once */
const partyBooks = new WeakMap<Participants, NameBook>();

/**
 * Display names by DID and by participant context id, from a participant list (GET /api/participants:
 * `participantId`, `identity` or `did`, `displayName`).
 */
export function partyNames(participants: Participants): NameBook {
  let book = partyBooks.get(participants);
  if (book) return book;
  const names = new Map<string, string>();
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  for (const o of participants) {
    const p = o as Readonly<Record<string, unknown>>;
    const name = text(p.displayName);
    if (!name) continue;
    const did = text(p.did) ?? text(p.identity);
    if (did) names.set(did, name);
    const id = text(p.participantId) ?? text(p["@id"]);
    if (id) names.set(id, name);
  }
  book = names;
  if (Object.isFrozen(participants)) partyBooks.set(participants, book);
  return book;
}
