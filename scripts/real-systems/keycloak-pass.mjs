// The Keycloak pass: Keycloak started with the shipped realm (scripts/real-systems/keycloak.mjs), the
// hub pointed at it (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), and the Playwright journeys of
// tests/keycloak/ signing in through Keycloak's own login page in chromium.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "./jvm.mjs";
import { startKeycloak } from "./keycloak.mjs";

const CONFIG = "tests/keycloak/playwright.config.ts";

export function keycloakPass() {
  return {
    name: "keycloak",
    title: "Keycloak",
    files() {
      return ["tests/keycloak/keycloak.spec.ts"];
    },
    async start({ log }) {
      // the hub's address is in the realm's redirect URIs, so it is chosen before Keycloak starts
      const hubPort = await freePort();
      const clientSecret = randomBytes(24).toString("base64url");
      const kc = await startKeycloak({ hubUrl: `http://127.0.0.1:${hubPort}`, clientSecret, log });
      return {
        env: {
          KEYCLOAK_URL: kc.url,
          KEYCLOAK_ADMIN_USER: kc.admin.username,
          KEYCLOAK_ADMIN_PASSWORD: kc.admin.password,
          KEYCLOAK_HUB_PORT: String(hubPort),
          OIDC_ISSUER: kc.issuer,
          OIDC_CLIENT_ID: "hub",
          OIDC_CLIENT_SECRET: clientSecret,
        },
        stop: () => kc.stop(),
      };
    },
    /** Playwright, its figures written vitest-shaped to `json` */
    async run({ run, json, env, files }) {
      const cli = path.join("node_modules", "@playwright", "test", "cli.js");
      const report = path.resolve(process.env.E2E_OUTPUT ?? "test-results", "playwright-keycloak.json");
      const status = run([cli, "test", "--config", CONFIG, ...files.map((f) => path.basename(f))], env);
      const stats = existsSync(report) ? (JSON.parse(readFileSync(report, "utf8")).stats ?? {}) : {};
      writeFileSync(
        json,
        JSON.stringify({
          numPassedTests: (stats.expected ?? 0) + (stats.flaky ?? 0),
          numFailedTests: stats.unexpected ?? (status === 0 ? 0 : 1),
          numPendingTests: stats.skipped ?? 0,
        }),
      );
      return status;
    },
  };
}
