// A throw-away Neo4j 5.26 LTS Community for the tests: the embedded database with its Bolt connector on
// 127.0.0.1 (tests/neo4j/Neo4jLauncher.java, compiled with javac against org.neo4j:neo4j from Maven
// Central, fetched once into the project's cache), native auth, data in a temp directory, tied to this
// process (decision 0046). `kill()` is a SIGKILL of its JVM; `restart()` starts it again on the same data.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
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
 * Starts Neo4j and resolves `{ uri, user, password, port, dir, stop, kill, restart }` once Bolt accepts
 * the password. `stop()` ends it and removes its data.
 */
export async function startNeo4j({ log = () => {}, heap = "768m" } = {}) {
  const java = findJava([17, 21], { log });
  const { classpath, classes } = neo4jClasspath({ log, java });
  const dir = tempDir("neo4j");
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true });
  const port = await freePort();
  const password = `hub-${randomBytes(9).toString("base64url")}`;
  const logFile = path.join(dir, "neo4j.log");
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
