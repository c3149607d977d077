// Builds everything `npm start` serves into build/ (or HUB_BUILD_DIR): the Remix app (classic compiler:
// build/remix server build, build/client hashed browser assets) and the Node server bundle build/server.
// Nothing is deleted first: files are overwritten in place and hashed assets accumulate, so a server
// still running from an earlier build keeps finding its assets.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const t0 = Date.now();
const out = process.env.HUB_BUILD_DIR ?? "build";

const remixCli = require.resolve("@remix-run/dev/dist/cli.js");
execFileSync(process.execPath, [remixCli, "build"], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production" },
});

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
};
await build({
  ...common,
  entryPoints: ["server/index.ts"],
  outfile: `${out}/server/index.js`,
});
// the embedded dataspace's own thread (server/local-dataspace/worker-host.ts finds it beside index.js)
await build({
  ...common,
  entryPoints: ["server/local-dataspace/worker.ts"],
  outfile: `${out}/server/local-dataspace-worker.js`,
});
// the audit batch thread (server/audit/batch-thread.ts finds it beside index.js; decision 0034)
await build({
  ...common,
  entryPoints: ["server/audit/batch-worker.ts"],
  outfile: `${out}/server/audit-batch-worker.js`,
});
console.log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
