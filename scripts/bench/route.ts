/**
 * One route, measured the bench's way, a few times in a row: for before/after comparisons of a change
 * on a shared machine. Starts the built server (`HUB_BUILD_DIR`, default `build`) on a store that is
 * kept between calls (`--data-dir`, seeded from empty the first time), signs in, sends one warm-up
 * request, then drives the route `--runs` times for `--seconds` each at `--concurrency` connections and
 * prints req/s, p50, p99 and the server's CPU ms per request of each run, with the load average.
 *
 *   npx tsx scripts/bench/route.ts --data-dir /tmp/hub-10k --persona admin --path /graph
 *   HUB_BUILD_DIR=/tmp/other/build npx tsx scripts/bench/route.ts …   # the same route on another build
 *   npx tsx scripts/bench/route.ts --node-args "--max-semi-space-size=16" …  # other Node flags
 *   npx tsx scripts/bench/route.ts --after admin:/graph/drawing.data … # another route (persona:path) driven first
 *   npx tsx scripts/bench/route.ts --gc …                               # the longest GC pauses of each run
 *   npx tsx scripts/bench/route.ts --path "/api/negotiations/{negotiation}?participantId=pharmaco" …
 *                                       # a path naming an id, found on the server as the bench finds it
 */
import { readFileSync, writeFileSync } from "node:fs";
import { signIn } from "../../tests/support/signin";
import { askApi, fillPath, findIds, placeholdersOf } from "./ids";
import { capture, drive } from "./load";
import { cpuMs, startBenchServer, stopChild } from "./server";

function arg(name: string, def: string): string {
  const a = process.argv.slice(2);
  const i = a.indexOf(`--${name}`);
  return i >= 0 ? a[i + 1] : def;
}

async function main() {
  const path = arg("path", "/api/health");
  const persona = arg("persona", "admin");
  const runs = Number(arg("runs", "3"));
  const seconds = Number(arg("seconds", "5"));
  const concurrency = Number(arg("concurrency", "50"));
  const dataDir = arg("data-dir", "");
  // e.g. --node-args "--max-semi-space-size=16": Node flags after the server's own (the last of a flag wins)
  const nodeArgs = arg("node-args", "").split(" ").filter(Boolean);
  // --gc: the server's garbage collections (--trace-gc), the longest pauses of each run printed
  const gc = process.argv.includes("--gc");
  if (gc) nodeArgs.push("--trace-gc");
  // --after <persona>:<path>: that route driven first, each run, as the bench's order does
  const after = arg("after", "");
  const srv = await startBenchServer(Number(arg("patients", "10000")), {
    nodeArgs,
    ...(dataDir ? { dataDir } : {}),
  });
  try {
    const { cookie } = await signIn(srv.url, persona);
    const wanted = new Set(placeholdersOf(path));
    const ids = wanted.size
      ? await findIds(wanted, async (who, p, init) =>
          askApi(srv.url, p, { ...init, cookie: (await signIn(srv.url, who)).cookie }),
        )
      : {};
    const route = fillPath(path, ids);
    const headers = { cookie, accept: route.startsWith("/api") ? "application/json" : "text/html" };
    const first = await capture(srv.url + route, headers);
    // --save <file>: the warm-up answer's text, e.g. to compare a page rendered two ways
    const save = arg("save", "");
    if (save) writeFileSync(save, first.text);
    console.log(
      `${route} as ${persona}: warm-up ${first.status}, ${(first.body.byteLength / 1024).toFixed(1)} KiB as sent (${(Buffer.byteLength(first.text) / 1024).toFixed(1)} KiB decoded)`,
    );
    const pauses: { ms: number; line: string }[] = [];
    srv.child.stdout?.on("data", (d: Buffer) => {
      for (const line of d.toString().split("\n")) {
        const m = /(Mark-Compact|Scavenge|Minor Mark-Sweep)[^,]*, ([\d.]+) \/ [\d.]+ ms/.exec(line);
        if (m) pauses.push({ ms: Number(m[2]), line: line.trim() });
      }
    });
    const before = after ? await afterRoute(srv.url, after) : undefined;
    for (let i = 0; i < runs; i++) {
      if (before) {
        const b = await drive(before.url, before.headers, seconds, concurrency);
        console.log(`  first ${after}: ${b.rps.toFixed(0)} req/s, p99 ${b.p99.toFixed(1)} ms`);
      }
      pauses.length = 0;
      const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
      const cpu0 = cpuMs(srv.child.pid!);
      const m = await drive(srv.url + route, headers, seconds, concurrency);
      const perRequest = (cpuMs(srv.child.pid!) - cpu0) / Math.max(1, m.requests);
      console.log(
        `run ${i + 1}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${m.errors}, server CPU ${perRequest.toFixed(2)} ms/req, load ${load}`,
      );
      if (gc) {
        const longest = [...pauses].sort((a, b) => b.ms - a.ms).slice(0, 3);
        console.log(
          `  ${pauses.length} collections; longest: ${longest.map((p) => p.line).join("\n    ") || "—"}`,
        );
      }
    }
  } finally {
    await stopChild(srv.child);
  }
}

/** the route to drive before each run (`--after persona:path`), signed in as its persona */
async function afterRoute(base: string, spec: string) {
  const at = spec.indexOf(":");
  const [persona, route] = [spec.slice(0, at), spec.slice(at + 1)];
  const { cookie } = await signIn(base, persona);
  const headers = { cookie, accept: route.startsWith("/api") ? "application/json" : "text/html" };
  await capture(base + route, headers);
  return { url: base + route, headers };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
