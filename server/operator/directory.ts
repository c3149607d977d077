import { z } from "zod";
import type { AuditLog } from "../audit/log";
import { ORGANISATIONS } from "../graph";
import { conflict, notFound } from "../http/errors";
import { presentString } from "../http/handler";
import { topicWriter, type Relational, type Sql } from "../storage/relational";
import { invalidField, missingFields } from "../http/field-errors";

/**
 * The participant directory the catalogue crawler reads (GET/POST/DELETE /api/admin/participants):
 * who takes part in federated discovery, under which DID, and where their DSP catalogue is. The
 * five founding organisations of the dataspace are seeded on first start, with the hub's
 * demonstration catalogue endpoint (/api/mock-dsp/{participant}/catalog/request) as their
 * catalogue address; seeded entries cannot be deleted.
 *
 * DIDs are checked against the W3C DID Core syntax (did:<method>:<method-specific-id>, method a
 * lower-case name, the id of allowed characters and percent-encodings); a did:web also needs a
 * domain name (W3C did:web method: a host, optionally %3A and a port, then :path segments).
 */

export const DIRECTORY_FIELDS_REQUIRED = "did and displayName are required";
export const DIRECTORY_DID_REQUIRED = "did query parameter is required";

export const directoryEntrySchema = z.object({
  id: z.string(),
  did: z.string(),
  displayName: z.string(),
  country: z.string().nullable(),
  catalogueUrl: z
    .string()
    .nullable()
    .describe("the participant's DSP catalogue request address; null: not crawled"),
  dataPlaneHosts: z
    .array(z.string())
    .describe(
      "hosts (names or IP addresses, any port) besides its DSP address's host that a pull may GET the participant's data from (decision 0106)",
    ),
  source: z.enum(["seeded", "added"]).describe("seeded: a founding participant (cannot be deleted)"),
  addedBy: z.string(),
  addedAt: z.string(),
});
export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

export const DID_PATTERN =
  /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
const DOMAIN =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/**
 * A data-plane host of a directory entry (decision 0106): a host name (letters, digits, `-`, `_`, dot-separated
 * labels: Docker and Kubernetes service names too), an IPv4 address or an IPv6 address in brackets; no scheme,
 * port, path or wildcard. The JSON Schema of the request states it; `parseDirectoryInput` also asks the WHATWG
 * URL parser, which compares hosts in the pull, for the same host back (no IPv4 shorthand such as `127.1`).
 */
export const HOST_PATTERN =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]{2,45}\])$/;
export const MAX_DATA_PLANE_HOSTS = 16;
export const DATA_PLANE_HOSTS_INVALID =
  'dataPlaneHosts must be a list of host names or IP addresses, e.g. ["dataplane.provider.example"]: no scheme, port, path or wildcard, an IPv6 address in brackets';
export const DATA_PLANE_HOSTS_TOO_MANY = `dataPlaneHosts lists at most ${MAX_DATA_PLANE_HOSTS} hosts`;

/** the hosts as the pull compares them (the WHATWG URL parser's host, lower case), or the 400 */
function parseDataPlaneHosts(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidField("dataPlaneHosts", DATA_PLANE_HOSTS_INVALID);
  const hosts = new Set<string>();
  for (const entry of value) {
    const host = typeof entry === "string" ? entry.trim() : "";
    if (host.length > 253 || !HOST_PATTERN.test(host))
      throw invalidField("dataPlaneHosts", DATA_PLANE_HOSTS_INVALID);
    const parsed = URL.canParse(`http://${host}/`) ? new URL(`http://${host}/`).hostname : "";
    // a name must come back as written (case aside); an IPv6 address is kept in its canonical form
    if (!parsed || (!host.startsWith("[") && parsed !== host.toLowerCase()))
      throw invalidField("dataPlaneHosts", DATA_PLANE_HOSTS_INVALID);
    hosts.add(parsed);
  }
  if (hosts.size > MAX_DATA_PLANE_HOSTS) throw invalidField("dataPlaneHosts", DATA_PLANE_HOSTS_TOO_MANY);
  return [...hosts];
}

export function didProblem(did: string): string | null {
  if (did.length > 512) return "did is too long (at most 512 characters)";
  if (!DID_PATTERN.test(did) || did.endsWith(":"))
    return `did "${did}" is not a valid DID: expected did:<method>:<method-specific-id> (W3C DID Core)`;
  if (did.startsWith("did:web:")) {
    const [hostPart] = did.slice("did:web:".length).split(":");
    const host = decodeURIComponent(hostPart ?? "").replace(/:\d{1,5}$/, "");
    if (host !== "localhost" && !DOMAIN.test(host))
      return `did:web needs a domain name, e.g. did:web:example.org or did:web:example.org:participant ("${hostPart}" is not one)`;
  }
  return null;
}

export function slugFor(displayName: string): string {
  return displayName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
}

export function parseDirectoryInput(body: Record<string, unknown>) {
  const did = presentString(body.did)?.trim();
  const displayName = presentString(body.displayName)?.trim();
  if (!did || !displayName) throw missingFields({ did, displayName }, DIRECTORY_FIELDS_REQUIRED);
  const problem = didProblem(did);
  if (problem) throw invalidField("did", problem);
  if (displayName.length > 200)
    throw invalidField("displayName", "displayName is too long (at most 200 characters)");
  const rawUrl = presentString(body.catalogueUrl);
  let catalogueUrl: string | null = null;
  if (rawUrl) {
    const u = URL.canParse(rawUrl) ? new URL(rawUrl) : null;
    if (!u || (u.protocol !== "https:" && u.protocol !== "http:"))
      throw invalidField("catalogueUrl", "catalogueUrl must be an absolute http(s) URL");
    // the directory lists it back, and a catalogue that cannot be read names it in its error
    if (u.username || u.password)
      throw invalidField("catalogueUrl", "catalogueUrl must not carry a user name or password");
    catalogueUrl = u.toString();
  }
  const country = presentString(body.country)?.toUpperCase() ?? null;
  if (country && !/^[A-Z]{2}$/.test(country))
    throw invalidField("country", "country must be an ISO 3166-1 alpha-2 code such as DE");
  const dataPlaneHosts = parseDataPlaneHosts(body.dataPlaneHosts);
  return { did, displayName, catalogueUrl, country, dataPlaneHosts };
}

/** an entry to add, as parseDirectoryInput makes it (its data-plane hosts optional: none) */
export type DirectoryInput = Omit<ReturnType<typeof parseDirectoryInput>, "dataPlaneHosts"> & {
  dataPlaneHosts?: readonly string[];
};

interface Row {
  id: string;
  did: string;
  display_name: string;
  country: string | null;
  catalogue_url: string | null;
  /** a JSON array of hosts; null: none */
  data_plane_hosts: string | null;
  seeded: 0 | 1;
  added_by: string;
  added_at: string;
}

const hostsOf = (r: Pick<Row, "data_plane_hosts">): string[] =>
  r.data_plane_hosts ? (JSON.parse(r.data_plane_hosts) as string[]) : [];

/** the hub's own catalogue addresses are stored relative, so that they follow PUBLIC_URL */
const toEntry = (r: Row, publicUrl: string): DirectoryEntry => ({
  id: r.id,
  did: r.did,
  displayName: r.display_name,
  country: r.country,
  catalogueUrl: r.catalogue_url?.startsWith("/") ? `${publicUrl}${r.catalogue_url}` : r.catalogue_url,
  dataPlaneHosts: hostsOf(r),
  source: r.seeded ? "seeded" : "added",
  addedBy: r.added_by,
  addedAt: r.added_at,
});

const TABLE = "crawler_directory";
/** the change-feed topic of the directory: bumped in every write's transaction (caches key by it) */
export const DIRECTORY_TOPIC = "crawler-directory";

export const mockCataloguePath = (id: string) => `/api/mock-dsp/${encodeURIComponent(id)}/catalog/request`;

export async function createDirectory(rel: Relational, audit: AuditLog, publicUrl: string) {
  await rel.migrate("crawler-directory-1", async (m) => {
    await m.schema
      .createTable(TABLE)
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("did", "text", (c) => c.notNull().unique())
      .addColumn("display_name", "text", (c) => c.notNull())
      .addColumn("country", "text")
      .addColumn("catalogue_url", "text")
      .addColumn("seeded", "integer", (c) => c.notNull())
      .addColumn("added_by", "text", (c) => c.notNull())
      .addColumn("added_at", "text", (c) => c.notNull())
      .execute();
  });
  // decision 0106: the hosts besides its DSP address's host a pull may GET a participant's data from
  await rel.migrate("crawler-directory-2", async (m) => {
    await m.schema.alterTable(TABLE).addColumn("data_plane_hosts", "text").execute();
  });
  const byDid = async (did: string, q: Sql = rel.db) =>
    (await q.selectFrom(TABLE).selectAll().where("did", "=", did).executeTakeFirst()) as Row | undefined;
  const byId = async (id: string, q: Sql = rel.db) =>
    (await q.selectFrom(TABLE).selectAll().where("id", "=", id).executeTakeFirst()) as Row | undefined;

  // the founding participants, once (several instances starting at once: the first one seeds)
  await rel.tx(async (tx) => {
    await rel.lock(tx, "crawler-directory-seed");
    const seeded = (await tx
      .selectFrom(TABLE)
      .select((eb) => eb.fn.countAll().as("n"))
      .where("seeded", "=", 1)
      .executeTakeFirstOrThrow()) as { n: number };
    if (Number(seeded.n) > 0) return;
    const at = new Date().toISOString();
    for (const o of ORGANISATIONS) {
      if (await byDid(o.did, tx)) continue;
      await tx
        .insertInto(TABLE)
        .values({
          id: o.slug,
          did: o.did,
          display_name: o.displayName,
          country: o.country,
          catalogue_url: mockCataloguePath(o.slug),
          seeded: 1,
          added_by: "system",
          added_at: at,
        })
        .execute();
    }
  });

  const writer = topicWriter(rel, DIRECTORY_TOPIC);

  return {
    /** changes with every write to the directory, here (at once) or on another instance sharing the store */
    version: writer.version,
    /** the same, with another instance's acknowledged write seen at once (on PostgreSQL its version row) */
    fresh: writer.fresh,
    async list(): Promise<DirectoryEntry[]> {
      const rows = (await rel.db
        .selectFrom(TABLE)
        .selectAll()
        .orderBy("seeded", "desc")
        .orderBy("display_name")
        .execute()) as Row[];
      return rows.map((r) => toEntry(r, publicUrl));
    },
    async find(key: string): Promise<DirectoryEntry | undefined> {
      const r = (await byId(key)) ?? (await byDid(key));
      return r ? toEntry(r, publicUrl) : undefined;
    },
    /**
     * The entry of `did` (the dataspace reads its catalogue address and data-plane hosts by the provider DID a
     * request or a negotiation names: provider-address.ts, decision 0106); matched by DID only, never by id.
     */
    async entryOfDid(did: string): Promise<DirectoryEntry | undefined> {
      const r = await byDid(did);
      return r ? toEntry(r, publicUrl) : undefined;
    },
    async add(input: DirectoryInput, actor: string): Promise<DirectoryEntry> {
      const hosts = input.dataPlaneHosts ?? [];
      const base = slugFor(input.displayName) || "participant";
      const row = await writer.tx(async (tx) => {
        if (await byDid(input.did, tx)) throw conflict(`${input.did} is already in the directory`);
        let id = base;
        for (let i = 2; await byId(id, tx); i++) id = `${base}-${i}`;
        const r: Row = {
          id,
          did: input.did,
          display_name: input.displayName,
          country: input.country,
          catalogue_url: input.catalogueUrl,
          data_plane_hosts: hosts.length ? JSON.stringify(hosts) : null,
          seeded: 0,
          added_by: actor,
          added_at: new Date().toISOString(),
        };
        await tx.insertInto(TABLE).values(r).execute();
        await audit.append(
          {
            action: "directory.add",
            actor,
            target: input.did,
            outcome:
              (input.catalogueUrl ? `catalogue ${input.catalogueUrl}` : "no catalogue address") +
              (hosts.length ? `; data plane hosts ${hosts.join(", ")}` : ""),
            kind: "directory",
          },
          { tx },
        );
        return r;
      });
      return toEntry(row, publicUrl);
    },
    async remove(key: string, actor: string): Promise<void> {
      const r = (await byDid(key)) ?? (await byId(key));
      if (!r) throw notFound(`No directory entry ${key}`);
      if (Number(r.seeded))
        throw conflict(
          `Seeded directory entries cannot be deleted: ${r.display_name} (${r.did}) is a founding participant of this dataspace`,
        );
      await writer.tx(async (tx) => {
        await tx.deleteFrom(TABLE).where("id", "=", r.id).execute();
        await audit.append({ action: "directory.remove", actor, target: r.did, kind: "directory" }, { tx });
      });
    },
  };
}

export type Directory = Awaited<ReturnType<typeof createDirectory>>;
