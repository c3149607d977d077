import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config";
import { createDataspace } from "./dataspace";
import { startDataspace } from "./start-dataspace";
import { openDatabase, type Db } from "./storage/database";

/** Who starts the embedded dataspace: the container (startDataspace), never the clients (createDataspace). */
let dataDir: string;
let db: Db;
const config = () =>
  loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://127.0.0.1:3997",
    UPSTREAM_TIMEOUT_MS: "2000",
  });

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "start-dataspace-"));
  db = openDatabase(":memory:");
});
afterAll(() => {
  db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the embedded dataspace is started by the container", () => {
  it("the clients alone start nothing: without a connector or an embedded one they refuse", async () => {
    await expect(createDataspace(config(), { db })).rejects.toThrow(/no embedded dataspace given/);
  });

  it("startDataspace starts it on loopback, the clients speak HTTP to it, and closing the dataspace stops it", async () => {
    const ds = await startDataspace(config(), { db });
    expect(ds.mode).toBe("embedded");
    expect(ds.local!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(`${ds.local!.url}/`);
    expect(root.headers.get("x-local-dataspace")).toBe("development");
    expect((await ds.listParticipants()).length).toBeGreaterThanOrEqual(5);
    await ds.close();
    await expect(fetch(`${ds.local!.url}/`)).rejects.toThrow();
  });
});
