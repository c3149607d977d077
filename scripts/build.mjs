// Builds everything `npm start` serves: the Remix app (classic compiler) and the Node server bundle.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const t0 = Date.now();
rmSync("build", { recursive: true, force: true });
rmSync("public/build", { recursive: true, force: true });

const remixCli = require.resolve("@remix-run/dev/dist/cli.js");
execFileSync(process.execPath, [remixCli, "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
};
await build({ ...common, entryPoints: ["server/index.ts"], outfile: "build/server/index.js" });
console.log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
