import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { startServer } from "../../server/app";
import { freePort } from "../support/server";

const dataDir = mkdtempSync(path.join(tmpdir(), "hub-port-"));
let squatter: Server | undefined;
afterAll(() => {
  squatter?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const configOn = (port: number) =>
  loadConfig({
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    SEED_PATIENTS: "10",
  });
const remixBuildPath = path.resolve(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js");

it("refuses a taken port with EADDRINUSE (the caller may then try another) and starts on the same DATA_DIR after", async () => {
  const taken = await freePort();
  squatter = createServer();
  await new Promise<void>((resolve) => squatter!.listen(taken, "127.0.0.1", resolve));

  await expect(startServer(configOn(taken), { remixBuildPath })).rejects.toMatchObject({
    code: "EADDRINUSE",
  });

  const server = await startServer(configOn(await freePort()), { remixBuildPath });
  try {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect((await res.json()).status).toBe("ok");
  } finally {
    await server.close();
  }
});
