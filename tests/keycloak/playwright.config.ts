import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../../server/config/node-flags";
import { CHROMIUM_LAUNCH } from "../support/chromium";

/**
 * The Keycloak pass (scripts/real-systems/keycloak-pass.mjs): the hub, built by `npm test` first, with
 * OIDC_ISSUER at a real Keycloak that imported deploy/keycloak/realm.json; every sign-in goes through
 * Keycloak's own login page in Debian's chromium. The pass starts Keycloak and sets the environment:
 * KEYCLOAK_HUB_PORT (the port the realm's redirect URIs name), OIDC_ISSUER, OIDC_CLIENT_ID,
 * OIDC_CLIENT_SECRET, KEYCLOAK_URL (the fault proxy in front of Keycloak, KEYCLOAK_PROXY_PORT, started by the
 * spec; Keycloak itself at KEYCLOAK_UPSTREAM_URL) and KEYCLOAK_ADMIN_USER / KEYCLOAK_ADMIN_PASSWORD (master realm).
 */
const PORT = Number(process.env.KEYCLOAK_HUB_PORT ?? 3370);
// the server runs in the project root (webServer's default folder is the config's)
const ROOT = process.cwd(); // npm test and the pass run Playwright from the project root
const SERVER_BUNDLE = path.resolve(ROOT, process.env.HUB_BUILD_DIR ?? "build", "server", "index.js");
export const BASE_URL = `http://127.0.0.1:${PORT}`;
// the pass makes (and removes) the hub's data folder; the config is read by every Playwright process
const dataDir = process.env.KEYCLOAK_HUB_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), "hub-keycloak-e2e-"));
// relative paths in a config are taken from its folder: these are from the project root
const output = path.resolve(ROOT, process.env.E2E_OUTPUT ?? "test-results");

export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  outputDir: `${output}/keycloak`,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"], ["json", { outputFile: `${output}/playwright-keycloak.json` }]],
  use: {
    baseURL: BASE_URL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: CHROMIUM_LAUNCH,
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: {
    command: `node ${SERVER_NODE_FLAGS.join(" ")} ${SERVER_BUNDLE}`,
    url: `${BASE_URL}/api/health`,
    cwd: ROOT,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_URL: BASE_URL,
      DATA_DIR: dataDir,
      SEED_PATIENTS: "200",
      UPSTREAM_TIMEOUT_MS: "5000",
      // sessions re-checked at Keycloak every 5 s, kept 20 s while it cannot be asked (the journeys wait that long)
      OIDC_SESSION_CHECK_SECONDS: "5",
      OIDC_SESSION_GRACE_SECONDS: "20",
      OIDC_ISSUER: process.env.OIDC_ISSUER ?? "",
      OIDC_CLIENT_ID: process.env.OIDC_CLIENT_ID ?? "",
      OIDC_CLIENT_SECRET: process.env.OIDC_CLIENT_SECRET ?? "",
    },
  },
});
