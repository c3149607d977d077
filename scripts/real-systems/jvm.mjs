// What the real systems of the test passes (Neo4j, Keycloak, an EDC connector) share: a JDK and Maven
// from Debian when missing, artifacts from Maven Central fetched once into the project's cache folder,
// a free port on 127.0.0.1, and a JVM tied to this process (it stops when the process that started it
// ends, even by SIGKILL) with its data in a temp directory.
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";

/** the project's cache of downloaded servers and artifacts (never committed) */
export function cacheDir(...parts) {
  const root =
    process.env.HUB_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "health-dataspace-hub");
  const dir = path.join(root, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const asRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function aptInstall(packages, log) {
  const sudo = asRoot() ? "" : "sudo ";
  log(`Installing ${packages.join(", ")} from Debian…`);
  execFileSync(
    "bash",
    [
      "-c",
      `${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq --no-install-recommends ${packages.join(" ")}`,
    ],
    { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } },
  );
}

function javaMajor(home) {
  try {
    const release = readFileSync(path.join(home, "release"), "utf8");
    const m = /JAVA_VERSION="(\d+)(?:\.(\d+))?/.exec(release);
    if (!m) return undefined;
    return m[1] === "1" ? Number(m[2]) : Number(m[1]);
  } catch {
    return undefined;
  }
}

/** every JDK on the machine: JAVA_HOME first, then /usr/lib/jvm, as { home, major, java } */
export function installedJdks() {
  const homes = [];
  if (process.env.JAVA_HOME) homes.push(process.env.JAVA_HOME);
  if (existsSync("/usr/lib/jvm"))
    for (const name of readdirSync("/usr/lib/jvm")) homes.push(path.join("/usr/lib/jvm", name));
  const seen = new Set();
  const out = [];
  for (const home of homes) {
    const java = path.join(home, "bin", "java");
    const major = javaMajor(home);
    if (!existsSync(java) || major === undefined) continue;
    let real = home;
    try {
      real = execFileSync("readlink", ["-f", home], { encoding: "utf8" }).trim();
    } catch {
      // keep the path as it is
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push({ home: real, major, java });
  }
  return out;
}

/**
 * A JDK whose major version is one of `majors` (in order of preference); installs Debian's
 * `openjdk-17-jdk-headless` when none is there and 17 is acceptable.
 */
export function findJava(majors = [17, 21], { log = () => {} } = {}) {
  const pick = () => {
    const jdks = installedJdks();
    for (const m of majors) {
      const j = jdks.find((x) => x.major === m);
      if (j) return j;
    }
    return undefined;
  };
  let jdk = pick();
  if (!jdk) {
    const debian = majors.find((m) => m === 17 || m === 21);
    if (debian === undefined) throw new Error(`no JDK ${majors.join(" or ")} on this machine`);
    aptInstall([`openjdk-${debian}-jdk-headless`], log);
    jdk = pick();
    if (!jdk) throw new Error(`openjdk-${debian}-jdk-headless installed, but no JDK ${debian} found`);
  }
  return jdk;
}

/** `mvn` on the PATH, installing Debian's maven when missing */
export function findMaven({ log = () => {} } = {}) {
  const which = () => {
    try {
      return execFileSync("bash", ["-c", "command -v mvn"], { encoding: "utf8" }).trim();
    } catch {
      return "";
    }
  };
  let mvn = which();
  if (!mvn) {
    aptInstall(["maven"], log);
    mvn = which();
  }
  if (!mvn) throw new Error("maven could not be installed");
  return mvn;
}

const coords = (d) =>
  `${d.groupId}:${d.artifactId}:${d.version}${d.type ? `:${d.type}` : ""}${(d.exclusions ?? []).map((x) => ` -${x.groupId}:${x.artifactId}`).join("")}`;

// `exclusions` (optional): transitive artifacts left out, e.g. a module its publisher never uploaded
const exclusionsXml = (exclusions = []) =>
  exclusions.length === 0
    ? ""
    : `\n      <exclusions>\n${exclusions
        .map(
          (x) =>
            `        <exclusion><groupId>${x.groupId}</groupId><artifactId>${x.artifactId}</artifactId></exclusion>`,
        )
        .join("\n")}\n      </exclusions>`;

function pomFor(name, dependencies) {
  const deps = dependencies
    .map(
      (d) => `    <dependency>
      <groupId>${d.groupId}</groupId>
      <artifactId>${d.artifactId}</artifactId>
      <version>${d.version}</version>${d.type ? `\n      <type>${d.type}</type>` : ""}${d.classifier ? `\n      <classifier>${d.classifier}</classifier>` : ""}${exclusionsXml(d.exclusions)}
    </dependency>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>health-dataspace-hub.real-systems</groupId>
  <artifactId>${name}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${deps}
  </dependencies>
</project>
`;
}

/**
 * The jars of `dependencies` and everything they need (runtime scope), fetched once from Maven Central
 * into `cacheDir(name, "lib")`; a marker file names the exact list, so a changed list fetches again.
 * Returns the jar paths.
 */
export function mavenClasspath(name, dependencies, { log = () => {}, java } = {}) {
  const dir = cacheDir(name);
  const lib = path.join(dir, "lib");
  const marker = path.join(dir, "fetched.txt");
  const want = dependencies.map(coords).sort().join("\n");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== want) {
    rmSync(lib, { recursive: true, force: true });
    writeFileSync(path.join(dir, "pom.xml"), pomFor(name, dependencies));
    const mvn = findMaven({ log });
    log(`Fetching ${name} from Maven Central (once, into ${dir})…`);
    execFileSync(
      mvn,
      [
        "-q",
        "-B",
        "-f",
        path.join(dir, "pom.xml"),
        `-Dmaven.repo.local=${cacheDir("m2")}`,
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        `-DoutputDirectory=${lib}`,
      ],
      { stdio: "inherit", env: { ...process.env, ...(java ? { JAVA_HOME: java.home } : {}) } },
    );
    writeFileSync(marker, want);
  }
  return readdirSync(lib)
    .filter((f) => f.endsWith(".jar"))
    .map((f) => path.join(lib, f));
}

/**
 * A zip distribution (e.g. Keycloak's server) fetched once from Maven Central and unpacked into
 * `cacheDir(name)`; returns the folder the zip holds at its top.
 */
export function mavenDistribution(name, dependency, { log = () => {}, java } = {}) {
  const dir = cacheDir(name);
  const marker = path.join(dir, "unpacked.txt");
  const want = coords({ ...dependency, type: dependency.type ?? "zip" });
  const dist = path.join(dir, "dist");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== want) {
    rmSync(dist, { recursive: true, force: true });
    const mvn = findMaven({ log });
    log(`Fetching ${want} from Maven Central (once, into ${dir})…`);
    execFileSync(
      mvn,
      [
        "-q",
        "-B",
        `-Dmaven.repo.local=${cacheDir("m2")}`,
        "dependency:copy",
        `-Dartifact=${want}`,
        `-DoutputDirectory=${dir}`,
      ],
      { stdio: "inherit", cwd: dir, env: { ...process.env, ...(java ? { JAVA_HOME: java.home } : {}) } },
    );
    const zip = readdirSync(dir).find((f) => f.endsWith(".zip"));
    if (!zip) throw new Error(`${want}: no zip fetched`);
    mkdirSync(dist, { recursive: true });
    execFileSync("unzip", ["-q", "-o", path.join(dir, zip), "-d", dist], { stdio: "inherit" });
    rmSync(path.join(dir, zip), { force: true });
    writeFileSync(marker, want);
  }
  const top = readdirSync(dist);
  return top.length === 1 ? path.join(dist, top[0]) : dist;
}

/** a port on 127.0.0.1 that nothing listens on now */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** a fresh temp directory, removed by `tiedProcess`'s stop or at exit */
export function tempDir(prefix) {
  return mkdtempSync(path.join(tmpdir(), `hub-${prefix}-`));
}

/**
 * Starts `command args` in its own process group under a watchdog: when this Node process ends (even
 * by SIGKILL) or `stop()` is called, the group is killed. `ready()` is polled until it resolves true
 * (within `timeoutMs`); output goes to `logFile`. Resolves `{ child, stop, kill }`: `kill()` is a
 * SIGKILL of the server alone (for fault tests), `stop()` ends it and removes `removeOnStop`.
 */
export async function tiedProcess({
  name,
  command,
  args,
  cwd,
  env = {},
  logFile,
  ready,
  timeoutMs = 180_000,
  removeOnStop = [],
  log = () => {},
}) {
  // the watchdog: a shell that starts the server in a new process group and kills the group when the
  // parent (this Node process) is gone or the server has ended
  const script = `
"$@" &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null; sleep 5; kill -KILL -- -$pid 2>/dev/null; exit 0' TERM INT
while kill -0 ${process.pid} 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done
kill -KILL -- -$pid 2>/dev/null
wait $pid 2>/dev/null
`;
  const out = logFile ? (await import("node:fs")).openSync(logFile, "a") : "ignore";
  const child = spawn("setsid", ["bash", "-c", `set -m; ${script}`, "watchdog", command, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", out, out],
    detached: false,
  });
  let stopped = false;
  const serverPids = () => {
    try {
      return execFileSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const kill = () => {
    for (const pid of serverPids()) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    }
  };
  const cleanup = () => {
    for (const d of removeOnStop) rmSync(d, { recursive: true, force: true });
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", onExit);
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      const deadline = Date.now() + 15_000;
      while (child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (child.exitCode === null) {
        kill();
        child.kill("SIGKILL");
      }
    }
    cleanup();
  };
  const onExit = () => {
    kill();
    try {
      child.kill("SIGKILL");
    } catch {
      // gone already
    }
    cleanup();
  };
  process.on("exit", onExit);
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      const tail = logFile && existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-3000) : "";
      throw new Error(`${name} exited at start (code ${child.exitCode})\n${tail}`);
    }
    let ok = false;
    try {
      ok = await ready();
    } catch {
      ok = false;
    }
    if (ok) break;
    if (Date.now() - started > timeoutMs) {
      await stop();
      const tail = logFile && existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-3000) : "";
      throw new Error(`${name} was not ready within ${Math.round(timeoutMs / 1000)} s\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  log(`${name} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { child, stop, kill };
}
