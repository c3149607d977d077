import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditInput } from "../audit/model";
import { loadConfig } from "../config";
import { openDatabase, type Db } from "../storage/database";
import { startDataspace } from "../start-dataspace";
import type { Dataspace } from "./index";

/**
 * A dataspace write is answered only once its audit entry is written: the hub acknowledges nothing
 * whose entry a crash could still lose (durability-kill.test.ts found a credential request answered
 * 201 whose entry was not in the file after kill -9: the entry was appended without being awaited).
 * The audit here takes 150 ms per entry, so an answer that does not wait for it comes first.
 */

const entries: { input: AuditInput; written: boolean }[] = [];
const slowAudit = {
  async append(input: AuditInput) {
    const entry = { input, written: false };
    entries.push(entry);
    await new Promise((r) => setTimeout(r, 150));
    entry.written = true;
  },
};

let dataDir: string;
let db: Db;
let ds: Dataspace;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "dataspace-audit-"));
  db = openDatabase(":memory:");
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    UPSTREAM_TIMEOUT_MS: "3000",
    PUBLIC_URL: "http://127.0.0.1:3997",
  });
  ds = await startDataspace(config, {
    db,
    audit: slowAudit,
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
    local: { stepMs: 40 },
  });
});
afterAll(async () => {
  await ds?.close();
  db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const written = (action: string) =>
  entries.filter((e) => e.input.action === action && e.input.outcome === "success").map((e) => e.written);

it("answers a credential request after its entry is written", async () => {
  const started = await ds.requestCredential("pharmaco", "DataProcessingPurposeCredential", "researcher");
  expect(started.status).toBe("REQUESTED");
  expect(written("credential.request")).toEqual([true]);
});

it("answers an onboarding after its entry is written", async () => {
  await ds.onboardParticipant({
    displayName: "Klinikum Nord",
    role: "DATA_HOLDER",
    organization: "Klinikum Nord",
    ehdsParticipantType: "DATA_HOLDER",
  });
  expect(written("participant.create")).toEqual([true]);
});
