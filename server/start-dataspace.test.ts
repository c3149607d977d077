import { mkdtempSync, rmSync } from "node:fs";
import { MANAGEMENT_CONTEXT } from "./dataspace-protocol";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config";
import { createDataspace } from "./dataspace";
import { pathToFileURL } from "node:url";
import { embeddedDataspaceRestart, startDataspace } from "./start-dataspace";
import { openDatabase, type Db } from "./storage/database";
import { startUpstreamDouble } from "../tests/support/upstream-double";

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

  it("a restart of the embedded dataspace keeps a configured issuer, with its key", async () => {
    const issuer = (await startUpstreamDouble()).on("POST", /credentialdefinitions\/query$/, { json: [] });
    const configured = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      PUBLIC_URL: "http://127.0.0.1:3997",
      UPSTREAM_TIMEOUT_MS: "2000",
      ISSUER_URL: `${issuer.url}/issuer`,
      ISSUER_API_KEY: "aXNzdWVy.a2V5",
    });
    const ds = await startDataspace(configured, { db });
    const restart = embeddedDataspaceRestart(configured, ds);
    try {
      await ds.runtime.issuer!.listCredentialDefinitions();
      await restart.restart();
      await ds.runtime.issuer!.listCredentialDefinitions();
      expect(issuer.requests.map((r) => r.headers["x-api-key"])).toEqual(["aXNzdWVy.a2V5", "aXNzdWVy.a2V5"]);
    } finally {
      await restart.close();
      await ds.close();
      await issuer.close();
    }
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

/** the built worker (node scripts/build.mjs), as the server finds it beside build/server/index.js */
const workerFile = pathToFileURL(path.resolve("build/server/local-dataspace-worker.js"));

describe("the embedded dataspace in its own worker thread (the built server's form)", () => {
  it("listens in its own thread, answers the clients over HTTP, restarts on its address and stops", async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;
    const listening = servers();
    const ds = await startDataspace(config(), { db, local: { worker: workerFile } });
    try {
      expect(ds.mode).toBe("embedded");
      // not on this event loop (at most as many as before: the previous test's server may still be closing)
      expect(servers()).toBeLessThanOrEqual(listening);
      const rootUrl = `${ds.local!.url}/`;
      expect((await fetch(rootUrl)).headers.get("x-local-dataspace")).toBe("development");
      expect((await ds.listParticipants()).length).toBeGreaterThanOrEqual(5);
      const offer = (id: string) => ({
        "@id": id,
        "@context": [MANAGEMENT_CONTEXT],
        "@type": "PolicyDefinition",
        policy: { "@type": "Set", permission: [{ action: "use" }] },
      });
      await ds.runtime.connector.createPolicyDefinition("lmc", offer("offer-worker-test"));

      const restart = embeddedDataspaceRestart(config(), ds);
      await restart.restart();
      expect(servers()).toBeLessThanOrEqual(listening);
      await expect(fetch(rootUrl)).resolves.toHaveProperty("status", 200);
      // the dataspace itself was not closed: its upstream pool (the data pulls' fetch) still answers
      await expect(ds.runtime.fetch(rootUrl)).resolves.toHaveProperty("status", 200);
      const defs = await ds.runtime.connector.listPolicyDefinitions("lmc");
      expect(defs.map((d) => d["@id"])).toContain("offer-worker-test"); // its store survived the restart
      await ds.runtime.connector.createPolicyDefinition("lmc", offer("offer-worker-test-2"));
      await restart.close();
      await expect(fetch(rootUrl)).rejects.toThrow();
    } finally {
      await ds.close();
    }
  });
});
