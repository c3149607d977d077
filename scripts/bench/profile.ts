/**
 * Where one route's time goes: starts the built server under `node --cpu-prof`, signs in, drives the
 * route with the bench's load for a few seconds, stops the server (which writes the .cpuprofile) and
 * prints the functions with the most self time, and the heaviest call paths into them.
 *
 *   npx tsx scripts/bench/profile.ts --patients 10000 --persona admin --path /api/graph/node?id=patient-000001
 *   npx tsx scripts/bench/profile.ts --data-dir /tmp/hub-10k …   # reuse a seeded store (kept)
 *   … --whole                                                     # the whole process, its start included
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { signIn } from "../../tests/support/signin";
import { askApi, fillPath, findIds, placeholdersOf } from "./ids";
import { drive } from "./load";
import { cpuMs, startBenchServer, stopChild } from "./server";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function arg(name: string, def?: string): string | undefined {
  const a = process.argv.slice(2);
  const i = a.indexOf(`--${name}`);
  return i >= 0 ? a[i + 1] : def;
}

/**
 * The samples of the last `ms` of a profile only: the measured run, without the server's start (module
 * loading, warm-ups of per-version caches) that a whole-process profile also holds.
 */
export function lastWindow(profile: Profile, ms: number): Profile {
  const total = profile.timeDeltas.reduce((a, b) => a + b, 0);
  const from = total - ms * 1000;
  let t = 0;
  let first = profile.samples.length;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= from) {
      first = i;
      break;
    }
  }
  return { ...profile, samples: profile.samples.slice(first), timeDeltas: profile.timeDeltas.slice(first) };
}

/** Self time per source file (a package's files under its name): where a route's time goes at a glance. */
export function byFile(profile: Profile, top = 20): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const files = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const n = byId.get(id)!;
    const url = n.callFrame.url || `(${n.callFrame.functionName})`;
    const file = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/build\//, "build/");
    files.set(file, (files.get(file) ?? 0) + dt);
    total += dt;
  });
  return [
    "-- self time per file:",
    ...[...files]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, t]) => `${((t / total) * 100).toFixed(1).padStart(5)} %  ${k}`),
  ].join("\n");
}

/** Self time per function, and for the top functions the callers' chains (3 frames) that lead there. */
export function summarise(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const name = (n: ProfileNode) => {
    const file = n.callFrame.url.replace(/^.*\/(node_modules\/)?/, "");
    return `${n.callFrame.functionName || "(anonymous)"} ${file}:${n.callFrame.lineNumber + 1}`;
  };
  const perFn = new Map<string, number>();
  const paths = new Map<string, Map<string, number>>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const k = name(n);
    perFn.set(k, (perFn.get(k) ?? 0) + t);
    const chain: string[] = [];
    let p = parent.get(id);
    while (p !== undefined && chain.length < 4) {
      const pn = byId.get(p)!;
      if (pn.callFrame.functionName !== "(root)") chain.push(name(pn));
      p = parent.get(p);
    }
    const m = paths.get(k) ?? new Map<string, number>();
    const c = chain.join(" < ");
    m.set(c, (m.get(c) ?? 0) + t);
    paths.set(k, m);
  }
  // inclusive: each sample counts once for every distinct function on its stack
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const seen = new Set<string>();
    for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) seen.add(name(byId.get(p)!));
    for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
  const lines = [`total sampled ${(total / 1000).toFixed(0)} ms`, "-- inclusive (self + callees):"];
  for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`${((t / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
  lines.push("-- self:");
  for (const [k, t] of [...perFn].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`${((t / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
    const best = [...(paths.get(k) ?? [])].sort((a, b) => b[1] - a[1])[0];
    if (best && best[0]) lines.push(`          < ${best[0]}`);
  }
  return lines.join("\n");
}

async function main() {
  const patients = Number(arg("patients", "10000"));
  const persona = arg("persona", "admin")!;
  const asked = arg("path", "/api/health")!;
  const seconds = Number(arg("seconds", "8"));
  const concurrency = Number(arg("concurrency", "50"));
  const accept = asked.startsWith("/api") ? "application/json" : "text/html";
  const dir = path.resolve(arg("out", "/tmp/hub-profile")!);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const srv = await startBenchServer(patients, {
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir],
    dataDir: arg("data-dir"),
  });
  console.log(`ready in ${(srv.readyMs / 1000).toFixed(1)} s`);
  try {
    const { cookie } = await signIn(srv.url, persona);
    // `{…}` placeholders (a negotiation's id, a provider's DID, …) looked up as the bench does (ids.ts)
    const wanted = new Set(placeholdersOf(asked));
    const ids = wanted.size
      ? await findIds(wanted, async (who, p, init) =>
          askApi(srv.url, p, { ...init, cookie: (await signIn(srv.url, who)).cookie }),
        )
      : {};
    const route = fillPath(asked, ids);
    const headers = { cookie, accept };
    await drive(srv.url + route, headers, 1, concurrency);
    const cpu0 = cpuMs(srv.child.pid!);
    const m = await drive(srv.url + route, headers, seconds, concurrency);
    const perRequest = (cpuMs(srv.child.pid!) - cpu0) / Math.max(1, m.requests);
    console.log(
      `${route}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${m.errors}, server CPU ${perRequest.toFixed(2)} ms/req (profiler on)`,
    );
  } finally {
    await stopChild(srv.child);
  }
  // one profile per thread (CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile): the main thread's
  // first, then the worker threads' (page render, audit batches, the embedded dataspace)
  const threadOf = (f: string) => Number(f.split(".")[4] ?? 0);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort((a, b) => threadOf(a) - threadOf(b));
  if (files.length === 0) throw new Error("no .cpuprofile written");
  for (const file of files) {
    // the measured run and the server's stop, not its start (--whole for all of it)
    const whole = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Profile;
    const profile = process.argv.includes("--whole") ? whole : lastWindow(whole, seconds * 1000 + 500);
    console.log(`==== thread ${threadOf(file)}${threadOf(file) === 0 ? " (main)" : ""}`);
    console.log(byFile(profile));
    console.log(summarise(profile, Number(arg("top", "25"))));
  }
}

// run as a script (scripts/soak.ts imports summarise only)
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
