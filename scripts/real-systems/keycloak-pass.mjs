// The Keycloak pass: Keycloak started with the shipped realm (scripts/real-systems/keycloak.mjs), the
// hub pointed at it (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), and the Playwright journeys of
// tests/keycloak/ signing in through Keycloak's own login page in chromium. For the fault journey the
// pass answers on KEYCLOAK_CONTROL_URL (127.0.0.1): POST /kill (SIGKILL of Keycloak) and POST /restart
// (started again on the same port and database; answers when it is ready).
//
// Keycloak is reached through the tests' reverse proxy (tests/support/fault-proxy.ts, started by the
// spec on KEYCLOAK_PROXY_PORT, in front of KEYCLOAK_UPSTREAM_URL): the browser, the hub's back-channel
// calls and the admin API all go through it, so the spec can make Keycloak slow, answer garbage, cut
// or reset its answers; Keycloak builds its URLs from the proxy's X-Forwarded-* headers.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { freePort, tempDir } from "./jvm.mjs";
import { startKeycloak } from "./keycloak.mjs";

const CONFIG = "tests/keycloak/playwright.config.ts";

/** the control of the running Keycloak, for the fault journey */
async function controlServer(kc, log) {
  const server = createServer((req, res) => {
    const act =
      req.method === "POST" && { "/kill": () => kc.kill(), "/restart": () => kc.restart() }[req.url];
    if (!act) return res.writeHead(404).end();
    log(`Keycloak control: ${req.url}`);
    Promise.resolve(act()).then(
      () => res.writeHead(204).end(),
      (e) => res.writeHead(500, { "Content-Type": "text/plain" }).end(String(e?.message ?? e)),
    );
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

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
      const control = await controlServer(kc, log);
      const proxyPort = await freePort();
      const proxyUrl = `http://127.0.0.1:${proxyPort}`;
      const hubData = tempDir("keycloak-hub");
      return {
        env: {
          KEYCLOAK_URL: proxyUrl,
          KEYCLOAK_PROXY_PORT: String(proxyPort),
          KEYCLOAK_UPSTREAM_URL: kc.url,
          KEYCLOAK_CONTROL_URL: control.url,
          KEYCLOAK_ADMIN_USER: kc.admin.username,
          KEYCLOAK_ADMIN_PASSWORD: kc.admin.password,
          KEYCLOAK_HUB_PORT: String(hubPort),
          KEYCLOAK_HUB_DATA_DIR: hubData,
          OIDC_ISSUER: `${proxyUrl}/realms/${kc.realm}`,
          OIDC_CLIENT_ID: "hub",
          OIDC_CLIENT_SECRET: clientSecret,
        },
        stop: async () => {
          await control.close();
          await kc.stop();
          rmSync(hubData, { recursive: true, force: true });
        },
      };
    },
    /** Playwright (not blocking this process: the control answers meanwhile), figures written vitest-shaped to `json` */
    async run({ json, env, files }) {
      const cli = path.join("node_modules", "@playwright", "test", "cli.js");
      const report = path.resolve(process.env.E2E_OUTPUT ?? "test-results", "playwright-keycloak.json");
      const status = await new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          [cli, "test", "--config", CONFIG, ...files.map((f) => path.basename(f))],
          { stdio: "inherit", env: { ...process.env, ...env } },
        );
        child.on("close", (code) => resolve(code ?? 1));
      });
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
