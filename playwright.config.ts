import { defineConfig } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "./server/config/node-flags";
import { CHROMIUM_LAUNCH } from "./tests/support/chromium";

/**
 * End-to-end journeys in Debian's chromium against the real server (built by `npm test` first),
 * signed in through the embedded identity provider. Screenshots are kept in test-results/.
 */
const PORT = Number(process.env.E2E_PORT ?? 3310);
const SERVER_BUNDLE = path.join(process.env.HUB_BUILD_DIR ?? "build", "server", "index.js");
export const BASE_URL = `http://127.0.0.1:${PORT}`;
/** a second server, on hold today (Europe/Berlin), for the offline notice */
export const OFFLINE_URL = `http://127.0.0.1:${PORT + 1}`;
/**
 * A data directory of the run: made once by the runner, which every worker process loading this file
 * again inherits through the environment, and removed when the runner exits (after the servers stop).
 */
function runDirectory(variable: string, prefix: string): string {
  const made = process.env[variable];
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.env[variable] = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const dataDir = runDirectory("HUB_E2E_DATA_DIR", "hub-e2e-");
const offlineDir = runDirectory("HUB_E2E_OFFLINE_DIR", "hub-e2e-offline-");
const berlinDay = (offsetDays: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: process.env.E2E_OUTPUT ?? "test-results/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [
    ["list"],
    ["json", { outputFile: `${process.env.E2E_OUTPUT ?? "test-results"}/playwright.json` }],
  ],
  use: {
    baseURL: BASE_URL,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: CHROMIUM_LAUNCH,
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: [
    {
      command: `node ${SERVER_NODE_FLAGS.join(" ")} ${SERVER_BUNDLE}`,
      url: `${BASE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        PORT: String(PORT),
        HOST: "127.0.0.1",
        PUBLIC_URL: BASE_URL,
        DATA_DIR: dataDir,
        SEED_PATIENTS: "200",
        UPSTREAM_TIMEOUT_MS: "3000",
      },
    },
    {
      command: `node ${SERVER_NODE_FLAGS.join(" ")} ${SERVER_BUNDLE}`,
      url: `${OFFLINE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        PORT: String(PORT + 1),
        HOST: "127.0.0.1",
        PUBLIC_URL: OFFLINE_URL,
        DATA_DIR: offlineDir,
        SEED_PATIENTS: "10",
        // today and the days around it (the run may cross midnight), in the office-hours time zone
        OFFICE_HOURS: "Mon-Sun 00:00-24:00 Europe/Berlin",
        OFFICE_HOLDS: [-1, 0, 1].map(berlinDay).join(","),
      },
    },
  ],
});
