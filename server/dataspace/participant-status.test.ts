import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { openDatabase, type Db } from "../storage/database";
import type { Dataspace } from "./index";
import { startDataspace } from "../start-dataspace";

/**
 * participantStatus: one participant context in any state, so that the onboarding view can watch
 * provisioning (CREATED, then ACTIVATED with its DID) before the context appears in
 * GET /api/participants, which lists ACTIVATED contexts only.
 */

const STEP_MS = 400;
let dataDir: string;
let db: Db;
let ds: Dataspace;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "dataspace-status-"));
  db = openDatabase(":memory:");
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    UPSTREAM_TIMEOUT_MS: "3000",
    PUBLIC_URL: "http://127.0.0.1:3998",
  });
  ds = await startDataspace(config, {
    db,
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
    local: { stepMs: STEP_MS },
  });
});

afterAll(async () => {
  await ds?.close();
  db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("participantStatus", () => {
  it("answers a seeded organisation as ACTIVATED with its DID, display name and role", async () => {
    await expect(ds.participantStatus("pharmaco")).resolves.toMatchObject({
      participantId: "pharmaco",
      state: "ACTIVATED",
      did: "did:web:pharmaco.de:research",
      displayName: "PharmaCo Research AG",
      role: "DATA_USER",
    });
  });

  it("follows an onboarded participant from CREATED to ACTIVATED", async () => {
    const started = await ds.onboardParticipant({
      displayName: "Klinikum Süd",
      role: "DATA_HOLDER",
      organization: "Klinikum Süd",
      ehdsParticipantType: "DATA_HOLDER",
    });
    const first = await ds.participantStatus(started.participantId);
    expect(first).toMatchObject({ participantId: started.participantId, state: "CREATED" });
    expect(first.did).toMatch(/^did:web:.+:klinikum-sd$/);
    expect((await ds.listParticipants()).some((p) => p.participantId === started.participantId)).toBe(false);

    const deadline = Date.now() + 5000;
    let now = first;
    while (now.state !== "ACTIVATED" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, STEP_MS / 3));
      now = await ds.participantStatus(started.participantId);
    }
    expect(now).toMatchObject({ state: "ACTIVATED", displayName: "Klinikum Süd", did: first.did });
    expect(now.stateTimestamp).toEqual(expect.any(Number));
  });

  it("answers 404 for an unknown participant", async () => {
    await expect(ds.participantStatus("nobody-here")).rejects.toMatchObject({
      status: 404,
      message: "Participant not found",
    });
  });
});
