/**
 * Lighthouse (12.2.3, its desktop and mobile presets) on the persona views, in Debian's chromium: the
 * landing page, every persona's home, the catalogue, a dataset, the graph explorer, analytics, the
 * access body's work queue and the patient's own record. Starts the built server (`HUB_BUILD_DIR`,
 * default `build`) on 127.0.0.1 with a temporary DATA_DIR, signs each persona in through the embedded
 * provider (tests/support/signin.ts) and hands Lighthouse the session cookie as a request header.
 * Writes the figures to docs/lighthouse.json and the "Lighthouse" section of docs/benchmarks.md, and
 * each full report to test-results/lighthouse/. Outside `npm test`, like the bench (decision 0058).
 *
 *   npm run lighthouse                         # build, then every page in both presets
 *   npx tsx scripts/lighthouse.ts --only graph,home # the pages whose name contains "graph" or "home";
 *                                              # the other pages' rows of the last run are kept, marked with their run
 *   npx tsx scripts/lighthouse.ts --port 3550 --patients 1000 --json /tmp/lh.json --no-doc
 */
import { launch } from "chrome-launcher";
import lighthouse, { desktopConfig } from "lighthouse";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_LAUNCH } from "../tests/support/chromium";
import { spawnBuiltServer } from "../tests/support/built-server";
import { signIn } from "../tests/support/signin";
import { LIGHTHOUSE_MARKS, putSection } from "./bench/doc-section";
import { askApi, fillPath, findIds, placeholdersOf } from "./bench/ids";
import { stopChild } from "./bench/server";

function arg(name: string, def: string): string {
  const a = process.argv.slice(2);
  const i = a.indexOf(`--${name}`);
  return i >= 0 ? a[i + 1] : def;
}

/** a page as Lighthouse opens it: `persona` null is a visitor who is not signed in */
interface Page {
  name: string;
  path: string;
  persona: string | null;
}

const HOMES = ["admin", "regulator", "clinic", "lmc", "researcher", "trustcenter", "patient1"];
export const PAGES: Page[] = [
  { name: "landing", path: "/", persona: null },
  ...HOMES.map((p) => ({ name: `home: ${p}`, path: "/", persona: p })),
  { name: "catalogue", path: "/catalogue", persona: "researcher" },
  { name: "dataset", path: "/catalogue/{dataset}", persona: "researcher" },
  { name: "graph", path: "/graph", persona: "admin" },
  // the explorer expanded to all layers, up to 1,000 nodes (the graph's first view before issue 40)
  { name: "graph: all layers", path: "/graph?layer=all", persona: "admin" },
  { name: "analytics", path: "/analytics", persona: "regulator" },
  { name: "work queue", path: "/access-body", persona: "regulator" },
  { name: "patient's record", path: "/my-record", persona: "patient1" },
];

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
type Preset = "desktop" | "mobile";

export interface Figures {
  page: string;
  path: string;
  persona: string | null;
  preset: Preset;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  /** total blocking time and largest contentful paint, ms */
  tbtMs: number;
  lcpMs: number;
  /** the audits of accessibility, best practices and SEO that did not pass, and performance's opportunities */
  failed: string[];
  /** when the run that measured this row started (a run with --only keeps the other rows of the last run) */
  at?: string;
}

/** a run as docs/lighthouse.json holds it */
interface Run {
  at: string;
  command: string;
  lighthouse: string;
  patients: number;
  loadAverage: { start: string; end: string };
  cores: number;
  /** the earlier runs whose rows are kept beside this one's (a run with --only) */
  earlier?: { at: string; loadAverage: { start: string; end: string } }[];
  results: Figures[];
}

/**
 * With --only, the rows of the pages not run again are kept from the last run (each with its run's
 * time), in the order of PAGES; without it, the run stands alone.
 */
export function mergeRuns(run: Run, last: Run | null, partial: boolean): Run {
  if (!partial || !last) return run;
  const key = (r: Figures) => `${r.page}|${r.preset}`;
  const fresh = new Map(run.results.map((r) => [key(r), r]));
  const kept = last.results.filter((r) => !fresh.has(key(r))).map((r) => ({ ...r, at: r.at ?? last.at }));
  const order = (r: Figures) =>
    PAGES.findIndex((p) => p.name === r.page) * 2 + (r.preset === "desktop" ? 0 : 1);
  const earlier = [{ at: last.at, loadAverage: last.loadAverage }, ...(last.earlier ?? [])].filter((e) =>
    kept.some((r) => r.at === e.at),
  );
  return {
    ...run,
    earlier,
    results: [...kept, ...run.results].sort((a, b) => order(a) - order(b)),
  };
}

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

async function main() {
  const port = Number(arg("port", "3550"));
  const patients = Number(arg("patients", "1000"));
  const only = arg("only", "").split(",").filter(Boolean);
  const started = new Date();
  const jsonOut = arg("json", "docs/lighthouse.json");
  const docOut = process.argv.includes("--no-doc") ? "" : arg("doc", "docs/benchmarks.md");
  const reports = arg("reports", "test-results/lighthouse");
  mkdirSync(reports, { recursive: true });

  const dataDir = mkdtempSync(path.join(os.tmpdir(), "hub-lighthouse-"));
  const loadAtStart = loadavg();
  const { url, child } = await spawnBuiltServer({ port, dataDir, patients, timeoutMs: 600_000 });
  const chrome = await launch({
    chromePath: CHROMIUM_LAUNCH.executablePath,
    chromeFlags: CHROMIUM_LAUNCH.args,
  });
  const results: Figures[] = [];
  try {
    const cookies = new Map<string, string>();
    const cookieOf = async (persona: string) => {
      if (!cookies.has(persona)) cookies.set(persona, (await signIn(url, persona)).cookie);
      return cookies.get(persona)!;
    };
    const wanted = new Set(PAGES.flatMap((p) => placeholdersOf(p.path)));
    const ids = await findIds(wanted, async (who, p, init) =>
      askApi(url, p, { ...init, cookie: await cookieOf(who) }),
    );
    for (const page of PAGES.filter((p) => !only.length || only.some((o) => p.name.includes(o)))) {
      const route = fillPath(page.path, ids);
      for (const preset of ["desktop", "mobile"] as Preset[]) {
        const cookie = page.persona ? await cookieOf(page.persona) : null;
        const once = async () => {
          const r = await lighthouse(
            url + route,
            {
              port: chrome.port,
              output: "json",
              logLevel: "error",
              onlyCategories: [...CATEGORIES],
              ...(cookie ? { extraHeaders: { cookie } } : {}),
            },
            preset === "desktop" ? desktopConfig : undefined,
          );
          if (!r) throw new Error(`lighthouse gave no result for ${route}`);
          return r;
        };
        // on a busy machine a trace now and then misses its navigation start (NO_NAVSTART): run it again
        let run = await once();
        for (let retry = 0; run.lhr.runtimeError && retry < 2; retry++) {
          console.log(`${page.name} ${preset}: ${run.lhr.runtimeError.code}, once more`);
          run = await once();
        }
        const lhr = run.lhr;
        const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
        const failed = Object.values(lhr.categories)
          .flatMap((c) => c.auditRefs.map((r) => ({ c: c.id, a: lhr.audits[r.id], weight: r.weight })))
          .filter(
            ({ c, a, weight }) =>
              a.score !== null &&
              a.score < 1 &&
              (c !== "performance" ? weight > 0 : a.details?.type === "opportunity" || weight > 0),
          )
          .map(({ a }) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ""}`);
        const f: Figures = {
          page: page.name,
          path: route,
          persona: page.persona,
          preset,
          performance: score("performance"),
          accessibility: score("accessibility"),
          bestPractices: score("best-practices"),
          seo: score("seo"),
          tbtMs: Math.round(lhr.audits["total-blocking-time"].numericValue ?? NaN),
          lcpMs: Math.round(lhr.audits["largest-contentful-paint"].numericValue ?? NaN),
          failed: [...new Set(failed)],
          at: started.toISOString(),
        };
        if (lhr.runtimeError) f.failed.unshift(`runtime error: ${lhr.runtimeError.code}`);
        results.push(f);
        const file = `${page.name.replace(/[^a-z0-9]+/gi, "-")}-${preset}.json`;
        writeFileSync(path.join(reports, file), String(run.report));
        console.log(
          `${page.name.padEnd(20)} ${preset.padEnd(7)} perf ${f.performance} a11y ${f.accessibility} bp ${f.bestPractices} seo ${f.seo} TBT ${f.tbtMs} ms LCP ${f.lcpMs} ms · load ${loadavg()}` +
            (f.failed.length ? `\n    ${f.failed.join("\n    ")}` : ""),
        );
      }
    }
  } finally {
    await chrome.kill();
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const loadAtEnd = loadavg();
  const run: Run = {
    at: started.toISOString(),
    command: "npm run lighthouse",
    lighthouse: JSON.parse(readFileSync("node_modules/lighthouse/package.json", "utf8")).version as string,
    patients,
    loadAverage: { start: loadAtStart, end: loadAtEnd },
    cores: os.cpus().length,
    results,
  };
  const last = existsSync(jsonOut) ? (JSON.parse(readFileSync(jsonOut, "utf8")) as Run) : null;
  const merged = mergeRuns(run, last, only.length > 0);
  writeFileSync(jsonOut, `${JSON.stringify(merged, null, 2)}\n`);
  if (docOut) await writeDoc(docOut, merged);
  console.log(`wrote ${jsonOut}${docOut ? ` and ${docOut}` : ""}`);
}

async function writeDoc(file: string, run: Run) {
  const hhmm = (at: string) => at.slice(11, 16);
  const earlier = run.earlier ?? [];
  const section = [
    LIGHTHOUSE_MARKS.start,
    "## Lighthouse",
    "",
    `Run: ${run.at} · \`npm run lighthouse\` (scripts/lighthouse.ts; Lighthouse ${run.lighthouse}, its desktop and mobile presets, ` +
      `simulated throttling) in Debian's chromium against the built server (${run.patients.toLocaleString("en-GB")} patients) · ` +
      `load average ${run.loadAverage.start} at the start, ${run.loadAverage.end} at the end (1/5/15 min) on ${run.cores} shared cores ` +
      "(Lighthouse's simulated mobile figures multiply the CPU time it observes, so a busy machine lowers them). " +
      "Targets (issue 40): performance ≥ 95 desktop and ≥ 90 mobile, accessibility 100, best practices 100, SEO ≥ 95. " +
      "All figures and the audits that did not pass: [lighthouse.json](lighthouse.json).",
    ...(earlier.length
      ? [
          "",
          `This run (\`--only\`) measured the rows marked ${hhmm(run.at)}; the others are kept from ` +
            earlier
              .map(
                (e) =>
                  `the run of ${e.at} (marked ${hhmm(e.at)}; load ${e.loadAverage.start} → ${e.loadAverage.end})`,
              )
              .join(", ") +
            ".",
        ]
      : []),
    "",
    `| page | persona | preset | performance | accessibility | best practices | SEO | TBT ms | LCP ms |${earlier.length ? " run (UTC) |" : ""}`,
    `|---|---|---|---:|---:|---:|---:|---:|---:|${earlier.length ? "---|" : ""}`,
    ...run.results.map(
      (r) =>
        `| ${r.page} | ${r.persona ?? "(visitor)"} | ${r.preset} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.tbtMs.toLocaleString("en-GB")} | ${r.lcpMs.toLocaleString("en-GB")} |` +
        (earlier.length ? ` ${hhmm(r.at ?? run.at)} |` : ""),
    ),
    LIGHTHOUSE_MARKS.end,
  ].join("\n");
  const { format, resolveConfig } = await import("prettier");
  const doc = readFileSync(file, "utf8");
  writeFileSync(
    file,
    await format(putSection(doc, LIGHTHOUSE_MARKS, section), {
      ...(await resolveConfig(file)),
      filepath: file,
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
