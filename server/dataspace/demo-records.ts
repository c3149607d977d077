import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { AppendOptions } from "../audit/log";
import type { AuditInput } from "../audit/model";
import { createKept, deepFrozen, EVERYONE } from "../http/kept";
import { topicWriter, type Relational } from "../storage/relational";
import assetsJson from "../../fixtures/demo-records/assets.json" with { type: "json" };
import negotiationsJson from "../../fixtures/demo-records/negotiations.json" with { type: "json" };
import participantsJson from "../../fixtures/demo-records/participants.json" with { type: "json" };
import transfersJson from "../../fixtures/demo-records/transfers.json" with { type: "json" };
import { DEFAULT_TRANSFER_TYPE } from "../dataspace-protocol";

/**
 * The bundled demonstration records (fixtures/demo-records, deterministic JSON) merged into the
 * negotiation, transfer, asset and participant lists (spec section 1), and the transfers started
 * in demonstration mode (POST /api/transfers with an `agreement-fhir-…-NNN` contract id), which
 * are kept so that they can be read back by id.
 */

const record = z.looseObject({ "@id": z.string().min(1) });
/** a negotiation or a transfer process */
const process = record.extend({
  "@type": z.string(),
  state: z.string(),
  participantContextId: z.string().optional(),
});
const assetGroup = z.looseObject({
  participantId: z.string(),
  identity: z.string(),
  assets: z.array(record),
});
const participant = record.extend({
  participantId: z.string(),
  displayName: z.string(),
  identity: z.string(),
});

export type DemoRecord = z.infer<typeof record>;

function load<T extends z.ZodType>(name: string, schema: T, value: unknown): z.infer<T>[] {
  const parsed = z.array(schema).safeParse(value);
  if (!parsed.success)
    throw new Error(`fixtures/demo-records/${name}.json is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const BUNDLED = {
  negotiations: load("negotiations", process, negotiationsJson),
  transfers: load("transfers", process, transfersJson),
  assets: load("assets", assetGroup, assetsJson),
  participants: load("participants", participant, participantsJson),
};

/** Copies, so that callers may decorate records without changing the bundle. */
const copy = <T>(v: T): T => structuredClone(v);

const SHARED = deepFrozen({
  negotiations: copy(BUNDLED.negotiations),
  transfers: copy(BUNDLED.transfers),
});

type Processes = { readonly negotiations: readonly DemoRecord[]; readonly transfers: readonly DemoRecord[] };
/** the bundle's records per participant context, built once each (the contexts are the bundle's own) */
const SHARED_OF = new Map<string, Processes>();
const NO_RECORDS = Object.freeze({ negotiations: Object.freeze([]), transfers: Object.freeze([]) });
const ownedBy = (participantId: string) => (r: DemoRecord) => r.participantContextId === participantId;

/**
 * The bundle's records of one participant context (their `participantContextId`), frozen and the
 * same arrays on every call: what that participant's lists and by-id reads merge in. Another
 * organisation's demonstration records are not its own (issue 34).
 */
function sharedOf(participantId: string): Processes {
  let kept = SHARED_OF.get(participantId);
  if (!kept) {
    const negotiations = SHARED.negotiations.filter(ownedBy(participantId));
    const transfers = SHARED.transfers.filter(ownedBy(participantId));
    if (!negotiations.length && !transfers.length) return NO_RECORDS;
    kept = Object.freeze({ negotiations: Object.freeze(negotiations), transfers: Object.freeze(transfers) });
    SHARED_OF.set(participantId, kept);
  }
  return kept;
}

export type DemoRecords = ReturnType<typeof bundledDemoRecords>;

export function bundledDemoRecords() {
  return {
    /** the bundle's own records, frozen: for callers that only read them (no copy per call) */
    shared: (): Processes => SHARED,
    sharedOf,
    assetGroups: (): z.infer<typeof assetGroup>[] => copy(BUNDLED.assets),
    participants: (): DemoRecord[] => copy(BUNDLED.participants),
  };
}

/** Demo contract ids: `agreement-fhir-`, word characters or hyphens, a hyphen and exactly three digits. */
export const DEMO_CONTRACT_ID = /^agreement-fhir-[\w-]+-\d{3}$/;

export interface DemoTransferInput {
  participantId: string;
  contractId: string;
  assetId: string;
  counterPartyAddress: string;
  transferType?: string;
}

const TABLE = "dataspace_demo_transfers";
/** the change-feed topic a new demonstration transfer bumps: every instance's list cache is dropped */
export const DEMO_TRANSFERS_TOPIC = "dataspace-demo-transfers";

export type DemoTransferStore = Awaited<ReturnType<typeof createDemoTransferStore>>;

export async function createDemoTransferStore(
  rel: Relational,
  audit?: { append(input: AuditInput, opts?: AppendOptions): Promise<unknown> },
) {
  await rel.migrate("dataspace-demo-transfers-1", async (m) => {
    await m.schema
      .createTable(TABLE)
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("participant_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("record", "text", (c) => c.notNull())
      .execute();
    await m.schema
      .createIndex("dataspace_demo_transfers_participant")
      .on(TABLE)
      .columns(["participant_id", "created_at"])
      .execute();
  });
  const parse = (r: { record: string } | undefined) => (r ? (JSON.parse(r.record) as DemoRecord) : undefined);
  // this instance's own creations count at once; another instance's through the feed's version as the
  // store has it now (`fresh`: on PostgreSQL its row, read by key, not the later NOTIFY)
  const writer = topicWriter(rel, DEMO_TRANSFERS_TOPIC);
  /** the lists by participant ("" for all), kept until a transfer is created on any instance */
  const lists = createKept<readonly DemoRecord[]>({ max: 1000 });

  /**
   * The list, frozen and shared: the very same array while no transfer was created (any instance), so
   * callers may key what they derive from it by its identity (the task list reads it on every request).
   */
  async function listShared(participantId?: string): Promise<readonly DemoRecord[]> {
    return lists(
      { caller: EVERYONE, versions: [await writer.fresh()], args: [participantId ?? ""] },
      async () => {
        let q = rel.db.selectFrom(TABLE).select("record");
        if (participantId) q = q.where("participant_id", "=", participantId);
        const rows = (await q.orderBy("created_at", "desc").limit(500).execute()) as { record: string }[];
        return deepFrozen(rows.map((r) => parse(r)!));
      },
    );
  }

  return {
    /** stores a demonstration transfer; its audit entry (transfer.start) commits with it */
    async create(input: DemoTransferInput, actor = "system"): Promise<DemoRecord> {
      const now = Date.now();
      const rec: DemoRecord = {
        "@id": `transfer-demo-${randomUUID()}`,
        "@type": "TransferProcess",
        state: "REQUESTED",
        stateTimestamp: now,
        type: "CONSUMER",
        contractId: input.contractId,
        assetId: input.assetId,
        counterPartyAddress: input.counterPartyAddress,
        transferType: input.transferType ?? DEFAULT_TRANSFER_TYPE,
        participantContextId: input.participantId,
        _demo: true,
      };
      await writer.tx(async (tx) => {
        await tx
          .insertInto(TABLE)
          .values({
            id: rec["@id"],
            participant_id: input.participantId,
            created_at: now,
            record: JSON.stringify(rec),
          })
          .execute();
        await audit?.append(
          {
            kind: "dataspace",
            action: "transfer.start",
            actor,
            target: `${input.participantId}: ${input.contractId} (${rec["@id"]}, demonstration)`,
            outcome: "success",
          },
          { tx },
        );
      });
      return rec;
    },
    async get(id: string) {
      return parse(
        (await rel.db.selectFrom(TABLE).select("record").where("id", "=", id).executeTakeFirst()) as
          { record: string } | undefined,
      );
    },
    listShared,
  };
}
