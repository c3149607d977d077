// Installs what is missing before `npm start` / `npm test` on a fresh clone:
// node_modules (npm ci, with the environment this machine needs) and, with --with-browser,
// Debian's chromium for the end-to-end tests and Debian's postgresql for the PostgreSQL pass.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";

const withBrowser = process.argv.includes("--with-browser");
const env = {
  ...process.env,
  // Electron's binary cannot be downloaded on the build machines; the desktop logic is tested without it
  ELECTRON_SKIP_BINARY_DOWNLOAD: process.env.ELECTRON_SKIP_BINARY_DOWNLOAD ?? "1",
  // better-sqlite3 compiles from source against the local Node headers
  npm_config_nodedir:
    process.env.npm_config_nodedir ?? (existsSync("/usr/include/node/node.h") ? "/usr" : undefined),
};
for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];

function installed() {
  const marker = "node_modules/.package-lock.json";
  if (!existsSync(marker)) return false;
  // a lockfile newer than the last install means the dependencies changed
  return statSync("package-lock.json").mtimeMs <= statSync(marker).mtimeMs + 1000;
}

function sqliteLoads() {
  try {
    execSync(`"${process.execPath}" -e "new (require('better-sqlite3'))(':memory:').close()"`, {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
}

if (!installed()) {
  console.log("Installing dependencies (npm ci)…");
  execSync("npm ci --no-audit --no-fund", { stdio: "inherit", env });
} else if (!sqliteLoads()) {
  console.log("Rebuilding better-sqlite3 for this Node…");
  execSync("npm rebuild better-sqlite3", { stdio: "inherit", env });
}

if (withBrowser) {
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(chromium)) {
    const root = typeof process.getuid === "function" && process.getuid() === 0;
    const sudo = root ? "" : "sudo ";
    console.log("Installing Debian's chromium for the end-to-end tests…");
    try {
      execSync(`${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq chromium`, {
        stdio: "inherit",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
    } catch {
      console.error(
        `Could not install chromium. Install it yourself (apt-get install chromium) or set CHROMIUM_PATH.`,
      );
      process.exit(1);
    }
  }
}

// the PostgreSQL pass of npm test (store contract tests, two instances): Debian's server binaries,
// started by scripts/postgres.mjs on 127.0.0.1 with its data in a temp directory (never as a service)
function postgresInstalled() {
  const root = "/usr/lib/postgresql";
  return (
    !!process.env.PG_BIN ||
    (existsSync(root) && readdirSync(root).some((v) => existsSync(`${root}/${v}/bin/postgres`)))
  );
}
if (withBrowser && !process.env.DATABASE_URL && !postgresInstalled()) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = root ? "" : "sudo ";
  console.log("Installing Debian's postgresql for the PostgreSQL tests…");
  try {
    execSync(
      `${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq --no-install-recommends postgresql`,
      {
        stdio: "inherit",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      },
    );
  } catch {
    console.error(
      "Could not install postgresql. Install it yourself (apt-get install postgresql), set PG_BIN to its bin directory, or set DATABASE_URL.",
    );
    process.exit(1);
  }
}
