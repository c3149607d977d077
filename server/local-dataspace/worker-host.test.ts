import { mkdtempSync, rmSync } from "node:fs";
import { MANAGEMENT_CONTEXT } from "../dataspace-protocol";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtWorkerFile, startLocalDataspaceWorker } from "./worker-host";

/**
 * The embedded dataspace in its worker thread, built (node scripts/build.mjs): its change counter
 * in shared memory and its close. The asset records it asks of the hub's thread by message are
 * pulled by tests/api/dataspace-local-negotiation.test.ts with DATASPACE_WORKER=1.
 */
const workerFile = pathToFileURL(path.resolve("build/server/local-dataspace-worker.js"));
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "ld-worker-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function token(tokenUrl: string, clientId: string, clientSecret: string) {
  const res = await fetch(tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe("startLocalDataspaceWorker", () => {
  it("finds the built worker beside the server bundle, and none beside the sources", () => {
    expect(builtWorkerFile(pathToFileURL(path.resolve("build/server/index.js")))?.href).toBe(workerFile.href);
    expect(builtWorkerFile()).toBeUndefined();
  });

  it("counts every change in the shared counter and closes", async () => {
    const counter = new SharedArrayBuffer(4);
    const l = await startLocalDataspaceWorker({
      workerFile,
      dataDir,
      counter,
      stepMs: 20,
      dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
    });
    try {
      const seeded = l.changeVersion();
      expect(seeded).toBeGreaterThan(0); // the seed's writes, counted in the worker
      expect(Atomics.load(new Int32Array(counter), 0)).toBe(seeded);
      const auth = { authorization: `Bearer ${await token(l.tokenUrl, l.clientId, l.clientSecret)}` };
      const res = await fetch(`${l.managementUrl}/${l.apiVersion}/participants/lmc/policydefinitions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          "@id": "offer-counted",
          "@context": [MANAGEMENT_CONTEXT],
          "@type": "PolicyDefinition",
          policy: { "@type": "Set", permission: [{ action: "use" }] },
        }),
      });
      expect(res.status).toBeLessThan(300);
      expect(l.changeVersion()).toBeGreaterThan(seeded); // the write, counted before its answer came
    } finally {
      await l.close();
    }
    await expect(fetch(`${l.url}/health`)).rejects.toThrow();
    await l.close(); // idempotent
  });

  it("a worker that cannot start rejects with its reason and leaves nothing running", async () => {
    const blocker = await startLocalDataspaceWorker({ workerFile, dataDir, dataSource: async () => ({}) });
    try {
      const port = Number(new URL(blocker.url).port);
      await expect(
        startLocalDataspaceWorker({ workerFile, dataDir, port, dataSource: async () => ({}) }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await blocker.close();
    }
  });
});
