// A throw-away Neo4j 5.26 LTS Community for the tests: the embedded database with its Bolt connector on
// 127.0.0.1 (tests/neo4j/Neo4jLauncher.java, compiled with javac against org.neo4j:neo4j from Maven
// Central, fetched once into the project's cache), native auth, data in a temp directory, tied to this
// process (decision 0046). `kill()` is a SIGKILL of its JVM; `restart()` starts it again on the same data.
// `importFrom` loads a CSV export of scripts/seed-export.ts into the empty database first, with Neo4j's
// own bulk importer, `neo4j-admin database import full` (decision 0068).
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findJava, freePort, mavenClasspath, tempDir, tiedProcess } from "./jvm.mjs";

export const NEO4J_VERSION = "5.26.30";
const LAUNCHER = fileURLToPath(new URL("../../tests/neo4j/Neo4jLauncher.java", import.meta.url));

/** the jars and the compiled launcher, as a class path (fetched and compiled once per source) */
function neo4jClasspath({ log, java }) {
  const jars = mavenClasspath(
    `neo4j-${NEO4J_VERSION}`,
    [{ groupId: "org.neo4j", artifactId: "neo4j", version: NEO4J_VERSION }],
    { log, java },
  );
  const classes = tempDir("neo4j-launcher");
  const javac = path.join(java.home, "bin", "javac");
  execFileSync(javac, ["-d", classes, "-cp", jars.join(":"), LAUNCHER], { stdio: "inherit" });
  return { classpath: [...jars, classes].join(":"), classes };
}

/**
 * The arguments of `neo4j-admin database import full` for a CSV export of scripts/seed-export.ts in `dir`
 * (its `nodes-<Label>.csv` files and `relationships.csv`): the database's name first (a name after the
 * variadic `--relationships=` would be read as one more file).
 */
export function importArgs(dir, { database = "neo4j", threads, maxOffHeap, report } = {}) {
  const files = readdirSync(dir).sort();
  const nodes = files.filter((f) => /^nodes-.+\.csv$/.test(f));
  const relationships = files.filter((f) => /^relationships.*\.csv$/.test(f));
  if (!nodes.length) throw new Error(`no nodes-*.csv in ${dir}: not a CSV export of scripts/seed-export.ts`);
  return [
    "database",
    "import",
    "full",
    database,
    ...nodes.map((f) => `--nodes=${path.join(dir, f)}`),
    ...relationships.map((f) => `--relationships=${path.join(dir, f)}`),
    ...(threads ? [`--threads=${threads}`] : []),
    ...(maxOffHeap ? [`--max-off-heap-memory=${maxOffHeap}`] : []),
    ...(report ? [`--report-file=${report}`] : []),
  ];
}

/**
 * Runs `neo4j-admin` (its entry point, `org.neo4j.cli.AdminTool` of neo4j-command-line, on the class path
 * of org.neo4j:neo4j) with NEO4J_HOME at `home`, the embedded database's home: the import writes
 * `home/data/databases/neo4j`, where the launcher's database finds it. Resolves on exit 0; its output
 * goes to `logFile`. The JVM ends with the import, or when this process exits (a SIGKILL of this
 * process leaves it to run to its end).
 */
function neo4jAdmin({ java, classpath, home, args, logFile, heap = "1g" }) {
  return new Promise((resolve, reject) => {
    const out = openSync(logFile, "a");
    const child = spawn(
      path.join(java.home, "bin", "java"),
      [`-Xmx${heap}`, "-cp", classpath, "org.neo4j.cli.AdminTool", ...args],
      { env: { ...process.env, NEO4J_HOME: home }, stdio: ["ignore", out, out] },
    );
    closeSync(out);
    const onExit = () => child.kill("SIGKILL");
    process.on("exit", onExit);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("exit", onExit);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `neo4j-admin ${args.slice(0, 3).join(" ")} failed (${signal ?? `exit ${code}`})\n${readFileSync(logFile, "utf8").slice(-3000)}`,
          ),
        );
    });
  });
}

/**
 * Starts Neo4j and resolves `{ uri, user, password, port, dir, stop, kill, restart }` once Bolt accepts
 * the password. `stop()` ends it and removes its data. With `importFrom` (a directory written by
 * `scripts/seed-export.ts --format csv`) the export is imported by neo4j-admin before the first start.
 */
export async function startNeo4j({ log = () => {}, heap = "768m", importFrom } = {}) {
  const java = findJava([17, 21], { log });
  const { classpath, classes } = neo4jClasspath({ log, java });
  const dir = tempDir("neo4j");
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true });
  const port = await freePort();
  const password = `hub-${randomBytes(9).toString("base64url")}`;
  const logFile = path.join(dir, "neo4j.log");
  if (importFrom) {
    const started = Date.now();
    log(`Importing ${importFrom} with neo4j-admin database import full…`);
    try {
      await neo4jAdmin({
        java,
        classpath,
        home,
        // two threads and 2 GB off the heap: the machines of the tests are small and shared
        args: importArgs(importFrom, {
          threads: 2,
          maxOffHeap: "2g",
          report: path.join(dir, "import.report"),
        }),
        logFile: path.join(dir, "import.log"),
      });
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      rmSync(classes, { recursive: true, force: true });
      throw e;
    }
    log(`Imported in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const startOnce = async () => {
    const mark = existsSync(logFile) ? readFileSync(logFile, "utf8").length : 0;
    return tiedProcess({
      name: "Neo4j",
      command: path.join(java.home, "bin", "java"),
      args: [
        `-Xmx${heap}`,
        "-XX:+UseSerialGC",
        "-cp",
        classpath,
        "Neo4jLauncher",
        home,
        String(port),
        password,
      ],
      logFile,
      log,
      ready: async () =>
        existsSync(logFile) && readFileSync(logFile, "utf8").slice(mark).includes("Neo4j ready"),
    });
  };
  let proc = await startOnce();
  const uri = `bolt://127.0.0.1:${port}`;
  return {
    uri,
    user: "neo4j",
    password,
    port,
    dir,
    logFile,
    /** SIGKILL of the JVM (a crash) */
    kill: () => proc.kill(),
    /** starts it again on the same data and port (after `kill()`) */
    async restart() {
      await proc.stop();
      proc = await startOnce();
    },
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
      rmSync(classes, { recursive: true, force: true });
    },
  };
}
