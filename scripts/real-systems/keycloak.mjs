// Keycloak for the tests: the server distribution (org.keycloak:keycloak-quarkus-dist) fetched once from
// Maven Central into the cache, started with `start-dev` on 127.0.0.1 and a free port, its H2 database
// in a temp directory, and the realm the project ships (deploy/keycloak/realm.json) imported with
// `--import-realm`, exactly as the README tells an operator to do.
//
// Start time: Keycloak's first `start-dev` builds its Quarkus application into the distribution (once,
// about a minute); creating the database schema and the master realm takes another minute on a busy
// machine, so the first start keeps an empty database (master realm and its admin only) in the cache
// as a template and every later start copies it into its temp directory.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cacheDir, findJava, freePort, mavenDistribution, tempDir, tiedProcess } from "./jvm.mjs";

export const KEYCLOAK_VERSION = "26.5.6";
export const KEYCLOAK_REALM_FILE = "deploy/keycloak/realm.json";
const REALM = "ehds";
/** the admin of the master realm (loopback only, in a throw-away database) */
const ADMIN = { username: "hub-test-admin", password: "hub-test-admin-password" };
const DB_FILE = "keycloakdb.mv.db";

const dbUrl = (dir) =>
  `jdbc:h2:file:${path.join(dir, "keycloakdb")};NON_KEYWORDS=VALUE;DB_CLOSE_ON_EXIT=FALSE`;

function keycloakDistribution(log) {
  // Keycloak 26 runs on Java 21 or later; Debian bookworm has no 21, the machine's Temurin 25 does
  const java = findJava([21, 25], { log });
  const home = mavenDistribution(
    "keycloak",
    { groupId: "org.keycloak", artifactId: "keycloak-quarkus-dist", version: KEYCLOAK_VERSION },
    { log, java },
  );
  return { java, home };
}

function launch(
  { java, home },
  { port, dataDir, env, log, name = "Keycloak", importRealm, realm = "master" },
) {
  const logFile = path.join(dataDir, "keycloak.log");
  return tiedProcess({
    name,
    command: path.join(home, "bin", "kc.sh"),
    args: [
      "start-dev",
      "--http-host=127.0.0.1",
      `--http-port=${port}`,
      `--db-url=${dbUrl(dataDir)}`,
      // behind the tests' reverse proxy (tests/support/fault-proxy.ts): URLs built from X-Forwarded-*
      "--proxy-headers=xforwarded",
      ...(importRealm ? ["--import-realm"] : []),
    ],
    cwd: dataDir,
    env: {
      JAVA_HOME: java.home,
      JAVA_OPTS_KC_HEAP: "-Xms64m -Xmx768m",
      // Java 24+ no longer opens java.lang to JBoss Threads without being asked
      ...(java.major >= 24 ? { JAVA_OPTS_APPEND: "--add-opens=java.base/java.lang=ALL-UNNAMED" } : {}),
      KC_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
      KC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
    logFile,
    timeoutMs: 420_000,
    log,
    ready: async () => {
      const res = await fetch(`http://127.0.0.1:${port}/realms/${realm}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(2000),
      });
      return res.ok;
    },
  });
}

/** the cached empty database (master realm and admin), made by a first start when missing */
async function templateDatabase(dist, log) {
  const dir = cacheDir("keycloak", `db-template-${KEYCLOAK_VERSION}`);
  const file = path.join(dir, DB_FILE);
  if (existsSync(file)) return file;
  const dataDir = tempDir("keycloak-template");
  log(`Keycloak ${KEYCLOAK_VERSION}: first start, building its database template (once, into ${dir})…`);
  const kc = await launch(dist, {
    port: await freePort(),
    dataDir,
    env: {},
    log,
    name: "Keycloak (template)",
  });
  await kc.stop();
  copyFileSync(path.join(dataDir, DB_FILE), file);
  rmSync(dataDir, { recursive: true, force: true });
  return file;
}

/**
 * Starts Keycloak with the shipped realm, its hub client pointed at `hubUrl` with `clientSecret`.
 * Resolves { url, issuer, adminToken(), stop(), kill(), restart() }.
 */
export async function startKeycloak({ hubUrl, clientSecret, log = () => {} }) {
  const t0 = Date.now();
  const dist = keycloakDistribution(log);
  const template = await templateDatabase(dist, log);
  const dataDir = tempDir("keycloak");
  // removed by stop(); and when this process ends without it (the server itself goes with its watchdog)
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  process.once("exit", removeData);
  copyFileSync(template, path.join(dataDir, DB_FILE));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { HUB_PUBLIC_URL: hubUrl, HUB_CLIENT_SECRET: clientSecret };

  // --import-realm reads the distribution's data/import: the shipped file goes there for this start
  const importDir = path.join(dist.home, "data", "import");
  mkdirSync(importDir, { recursive: true });
  const imported = path.join(importDir, "ehds-realm.json");
  writeFileSync(imported, readFileSync(KEYCLOAK_REALM_FILE));
  let kc;
  try {
    kc = await launch(dist, { port, dataDir, env, log, importRealm: true, realm: REALM });
  } finally {
    rmSync(imported, { force: true });
  }
  log(
    `Keycloak ${KEYCLOAK_VERSION} with realm ${REALM} at ${url} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );

  return {
    url,
    issuer: `${url}/realms/${REALM}`,
    realm: REALM,
    admin: ADMIN,
    /** SIGKILL of the server alone (the realm stays in the database) */
    kill: () => kc.kill(),
    /** starts it again on the same port and database (after kill or stop) */
    async restart() {
      await kc.stop();
      kc = await launch(dist, { port, dataDir, env, log, realm: REALM });
    },
    async stop() {
      await kc.stop();
      process.off("exit", removeData);
      removeData();
    },
  };
}
