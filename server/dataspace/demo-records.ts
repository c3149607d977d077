import { randomUUID } from "node:crypto";
import { z } from "zod";
import { migrate, type Db } from "../storage/database";
import assetsJson from "../../fixtures/demo-records/assets.json" with { type: "json" };
import negotiationsJson from "../../fixtures/demo-records/negotiations.json" with { type: "json" };
import participantsJson from "../../fixtures/demo-records/participants.json" with { type: "json" };
import transfersJson from "../../fixtures/demo-records/transfers.json" with { type: "json" };
import { DEFAULT_TRANSFER_TYPE } from "./protocol";

/**
 * The bundled demonstration records (fixtures/demo-records, deterministic JSON) merged into the
 * negotiation, transfer, asset and participant lists (spec section 1), and the transfers started
 * in demonstration mode (POST /api/transfers with an `agreement-fhir-…-NNN` contract id), which
 * are kept so that they can be read back by id.
 */

const record = z.looseObject({ "@id": z.string().min(1) });
const negotiation = record.extend({
  "@type": z.string(),
  state: z.string(),
  participantContextId: z.string().optional(),
});
const transfer = record.extend({
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
export type DemoAssetGroup = z.infer<typeof assetGroup>;

export interface DemoRecords {
  negotiations(): DemoRecord[];
  transfers(): DemoRecord[];
  assetGroups(): DemoAssetGroup[];
  participants(): DemoRecord[];
}

function load<T extends z.ZodType>(name: string, schema: T, value: unknown): z.infer<T>[] {
  const parsed = z.array(schema).safeParse(value);
  if (!parsed.success)
    throw new Error(`fixtures/demo-records/${name}.json is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const BUNDLED = {
  negotiations: load("negotiations", negotiation, negotiationsJson),
  transfers: load("transfers", transfer, transfersJson),
  assets: load("assets", assetGroup, assetsJson),
  participants: load("participants", participant, participantsJson),
};

/** Copies, so that callers may decorate records without changing the bundle. */
const copy = <T>(v: T): T => structuredClone(v);

export function bundledDemoRecords(): DemoRecords {
  return {
    negotiations: () => copy(BUNDLED.negotiations),
    transfers: () => copy(BUNDLED.transfers),
    assetGroups: () => copy(BUNDLED.assets),
    participants: () => copy(BUNDLED.participants),
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

export interface DemoTransferStore {
  create(input: DemoTransferInput): DemoRecord;
  get(id: string): DemoRecord | undefined;
  list(participantId?: string): DemoRecord[];
}

export function createDemoTransferStore(db: Db): DemoTransferStore {
  migrate(db, "dataspace-demo-transfers-1", [
    `CREATE TABLE dataspace_demo_transfers (
      id TEXT PRIMARY KEY,
      participant_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      record TEXT NOT NULL
    )`,
    "CREATE INDEX dataspace_demo_transfers_participant ON dataspace_demo_transfers(participant_id, created_at)",
  ]);
  const insert = db.prepare(
    "INSERT INTO dataspace_demo_transfers (id, participant_id, created_at, record) VALUES (?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], { record: string }>(
    "SELECT record FROM dataspace_demo_transfers WHERE id = ?",
  );
  const all = db.prepare<[], { record: string }>(
    "SELECT record FROM dataspace_demo_transfers ORDER BY created_at DESC LIMIT 500",
  );
  const byParticipant = db.prepare<[string], { record: string }>(
    "SELECT record FROM dataspace_demo_transfers WHERE participant_id = ? ORDER BY created_at DESC LIMIT 500",
  );
  const parse = (r: { record: string } | undefined) => (r ? (JSON.parse(r.record) as DemoRecord) : undefined);

  return {
    create(input) {
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
      insert.run(rec["@id"], input.participantId, now, JSON.stringify(rec));
      return rec;
    },
    get: (id) => parse(byId.get(id)),
    list: (participantId) =>
      (participantId ? byParticipant.all(participantId) : all.all()).map((r) => parse(r)!),
  };
}
