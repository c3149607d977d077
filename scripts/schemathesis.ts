import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PERSONAS as DEMO_PERSONAS } from "../server/auth/personas";
import { spawnBuiltServer } from "../tests/support/built-server";
import { freePort } from "../tests/support/server";
import { signIn } from "../tests/support/signin";
import { stopChild } from "./bench/server";

/**
 * Schemathesis against the built hub, driven only by its GET /api/openapi.json (issue 39,
 * docs/decisions/0082): for each persona (and anonymous) a fresh hub from an empty DATA_DIR (seeded,
 * the embedded dataspace and provider), a sign-in through the real OpenID flow, then one
 * `schemathesis run` with every check and the session cookie. Writes change the store, so each
 * persona starts from the same seed. Schemathesis is a tool, not a dependency: its path comes from
 * SCHEMATHESIS (default `schemathesis` on the PATH).
 *
 *   npx tsx scripts/schemathesis.ts [persona …] [-- extra schemathesis arguments]
 *
 * Reports (ndjson, junit and the vcr cassette of every request) go to REPORT_DIR (default /tmp/schemathesis-hub/<persona>).
 */

// every persona of the embedded provider (server/auth/personas.ts) but patient2, who has patient1's role, and anonymous
const PERSONAS = ["anonymous", ...DEMO_PERSONAS.map((p) => p.username).filter((u) => u !== "patient2")];
const dash = process.argv.indexOf("--");
const chosen = process.argv.slice(2, dash < 0 ? undefined : dash);
const extra = dash < 0 ? [] : process.argv.slice(dash + 1);
const personas = chosen.length ? chosen : PERSONAS;
const tool = process.env.SCHEMATHESIS ?? "schemathesis";
const reports = process.env.REPORT_DIR ?? path.join(os.tmpdir(), "schemathesis-hub");
// Schemathesis keeps its cache (.schemathesis/) in its working directory: the reports', not the repository
mkdirSync(reports, { recursive: true });

for (const persona of personas) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `hub-schemathesis-${persona}-`));
  const { url, child } = await spawnBuiltServer({ port: await freePort(), dataDir, stderr: "inherit" });
  try {
    const cookie =
      persona === "anonymous" ? undefined : (await signIn(url, persona)).jar.get("app-auth.session-token");
    // POST /api/auth/signout ends the session the run signs its requests with: the signed-in runs leave
    // the sign-in routes' POST out (the anonymous run covers it)
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const signOut = doc.paths["/api/auth/{rest}"]?.post?.operationId;
    // the cookie as the document's `session` security scheme (not a bare header), so that Schemathesis
    // knows which part of a request is its authentication when it leaves it out
    const config = path.join(dataDir, "schemathesis.toml");
    writeFileSync(config, cookie ? `[auth.openapi.session]\napi_key = "\${HUB_SESSION}"\n` : "");
    const args = [
      "--config-file",
      config,
      "run",
      `${url}/api/openapi.json`,
      "--checks",
      "all",
      "--phases",
      "examples,coverage,fuzzing,stateful",
      "--report",
      "ndjson,junit,vcr",
      "--report-dir",
      path.join(reports, persona),
      "--suppress-health-check",
      "all",
      ...(cookie && signOut ? ["--exclude-operation-id", signOut] : []),
      ...extra,
    ];
    console.log(`\n=== ${persona}: ${tool} ${args.join(" ")}`);
    const code = await new Promise<number | null>((resolve) =>
      spawn(tool, args, {
        cwd: reports,
        stdio: "inherit",
        env: { ...process.env, HUB_SESSION: cookie ?? "" },
      }).once("exit", resolve),
    );
    console.log(`=== ${persona}: schemathesis exited with ${code}`);
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
