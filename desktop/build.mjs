// `npm run desktop:build`: the Electron main process, preload and the desktop's own pages into
// build/desktop/ (main.js, preload.cjs, pages/*.html). Separate from scripts/build.mjs on purpose:
// the server build must never depend on the desktop, and this takes about a second.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const out = "build/desktop";
const t0 = Date.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, "pages"), { recursive: true });

const common = {
  bundle: true,
  sourcemap: true,
  logLevel: "warning",
  external: ["electron"],
  legalComments: "none",
};
// Electron 40 runs Node 22 in the main process; main is ESM ("type": "module"), the sandboxed preload CommonJS
await build({
  ...common,
  entryPoints: ["desktop/main.ts"],
  outfile: `${out}/main.js`,
  platform: "node",
  format: "esm",
  target: "node22",
});
await build({
  ...common,
  entryPoints: ["desktop/preload.ts"],
  outfile: `${out}/preload.cjs`,
  platform: "node",
  format: "cjs",
  target: "node22",
});

// pages: one inline script and one inline style each, allowed by their hashes in the page's CSP
const css = readFileSync("desktop/pages/pages.css", "utf8");
const sha = (text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
const titles = {
  splash: "Starting…",
  "first-run": "How do you want to start?",
  notice: "Health Dataspace Hub",
};
for (const [page, title] of Object.entries(titles)) {
  const r = await build({
    entryPoints: [`desktop/pages/${page}.ts`],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome130",
    minify: true,
    logLevel: "warning",
  });
  const js = r.outputFiles[0].text;
  const csp = `default-src 'none'; script-src ${sha(js)}; style-src ${sha(css)}; img-src data:; base-uri 'none'; form-action 'none'`;
  writeFileSync(
    path.join(out, "pages", `${page}.html`),
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${csp}">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<style>${css}</style>\n</head>\n<body>\n<main id="app"></main>\n<script>${js}</script>\n</body>\n</html>\n`,
  );
}
// the unpacked build/ folder of an installed app has no package.json above it: mark its .js as ESM
writeFileSync("build/package.json", `${JSON.stringify({ type: "module", private: true }, null, 2)}\n`);
console.log(
  `desktop built in ${((Date.now() - t0) / 1000).toFixed(1)} s → ${out}/ (main.js, preload.cjs, pages/)`,
);
