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

/**
 * The names of every provider's assets (GET /api/assets, grouped), by asset id: an asset's `name`
 * (normalised: its `@id` when it has none); the first provider that names an id wins.
 */
export const assetNames = /* @__PURE__ */ bookPer((groups: Groups): AssetBook => {
  const names = new Map<string, string>();
  for (const g of groups)
    for (const a of g.assets) {
      const id = typeof a["@id"] === "string" ? a["@id"] : "";
      const name = typeof a.name === "string" && a.name ? a.name : id;
      if (id && !names.has(id)) names.set(id, name);
    }
  return names;
});

/** any participant list (the API's records or the views' typed ones): its fields are read defensively */
type Participants = readonly object[];

/**
 * Display names by DID and by participant context id, from a participant list (GET /api/participants:
 * `participantId`, `identity` or `did`, `displayName`).
 */
export const partyNames = /* @__PURE__ */ bookPer((participants: Participants): NameBook => {
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
  return names;
});

/** a book per list, made once for a frozen one (the kept answers of listAssetGroups and listParticipants) */
function bookPer<L extends object>(make: (list: L) => ReadonlyMap<string, string>) {
  const books = new WeakMap<L, ReadonlyMap<string, string>>();
  return (list: L): ReadonlyMap<string, string> => {
    let book = books.get(list);
    if (book) return book;
    book = make(list);
    if (Object.isFrozen(list)) books.set(list, book);
    return book;
  };
}
