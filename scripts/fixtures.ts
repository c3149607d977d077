/**
 * `npm run fixtures`: records static mode's fixtures. Starts the real server (live mode, embedded
 * defaults: SQLite graph seeded with the synthetic population, embedded local dataspace) on a
 * fresh temporary DATA_DIR, wraps the services of the static-mode registry in a recorder, walks
 * every view for every persona through the real Remix loaders (scripts/static-mode/views.ts) and
 * writes what the views read to fixtures/static/<service>/<method>.json, plus views.json (the
 * walked views and their statuses). Deterministic for a given SEED_PATIENTS (default 200).
 *
 * Options: --out <dir> (default fixtures/static), --patients <n>.
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import type { ServerBuild } from "@remix-run/node";
import { startServer } from "../server/app";
import { loadConfig } from "../server/config";
import { personaSessions } from "../server/static-mode/personas";
import { recordServices } from "./static-mode/recorder";
import { walkViews } from "./static-mode/views";
import { DEFAULT_FIXTURES_DIR } from "../server/static-mode/fixture-book";
import { freePort } from "../desktop/ports";
import { fixPseudonymSecret } from "./static-mode/pseudonym-secret";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main() {
  const out = path.resolve(arg("out") ?? DEFAULT_FIXTURES_DIR);
  const patients = arg("patients") ?? "200";
  const buildPath = path.resolve("build/remix/index.js");
  if (!existsSync(buildPath)) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });

  const t0 = Date.now();
  const dataDir = mkdtempSync(path.join(tmpdir(), "hub-fixtures-"));
  // the same pseudonyms from one recording to the next (synthetic data; scripts/static-mode/pseudonym-secret.ts)
  await fixPseudonymSecret(dataDir, "static-fixtures-pseudonyms-synthetic-data");
  const port = await freePort("127.0.0.1");
  const config = loadConfig({
    NODE_ENV: "development",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    SEED_PATIENTS: patients,
    APP_MODE: "live",
  });
  const server = await startServer(config, { remixBuildPath: buildPath, progress: true });
  try {
    const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
    const recording = recordServices(server.services, { overrides: { sessions: personaSessions() } });
    const pages = await walkViews(build, recording.services, {
      onPersona: (persona, walked) => {
        const statuses = new Map<number, number>();
        for (const p of walked) statuses.set(p.status, (statuses.get(p.status) ?? 0) + 1);
        console.log(
          `  ${persona.padEnd(11)} ${walked.length} views  ${[...statuses].map(([s, n]) => `${s}×${n}`).join(" ")}`,
        );
      },
    });
    const failed = pages.filter((p) => p.status >= 500);
    for (const p of failed)
      console.error(
        `  ${p.status} /as/${p.persona}${p.path}\n    ${p.body.slice(0, 300).replace(/\s+/g, " ")}`,
      );
    if (recording.unregistered.size) {
      console.error(
        `Views used services static mode does not know: ${[...recording.unregistered].join(", ")} — add them to server/static-mode/registry.ts`,
      );
      process.exitCode = 1;
    }
    if (recording.unclassified.size) {
      console.warn(
        `Recorded as reads, not classified in server/static-mode/registry.ts: ${[...recording.unclassified].join(", ")}`,
      );
    }
    const bytes = recording.book.writeTo(out);
    const views = pages.map((p) => ({
      persona: p.persona,
      path: p.path,
      status: p.status,
      ...(p.location ? { location: p.location } : {}),
    }));
    writeFileSync(
      path.join(out, "views.json"),
      `{"seedPatients":${Number(patients)},"views":[\n${views.map((v) => JSON.stringify(v)).join(",\n")}\n]}\n`,
    );
    const files = recording.book.toFiles();
    console.log(
      `Wrote ${files.length} fixture files (${files.reduce((n, f) => n + f.calls.length, 0)} calls, ${(bytes / 1024 / 1024).toFixed(1)} MB) ` +
        `and views.json (${pages.length} views) to ${path.relative(process.cwd(), out)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    if (failed.length) process.exitCode = 1;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
