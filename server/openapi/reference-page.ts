import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import send from "send";
import { sendText } from "../http/node-adapter";

/**
 * The API reference page (issue 39, docs/decisions/0057): `/docs/api` renders `/api/openapi.json`
 * with Swagger UI (`swagger-ui-dist`, pinned exact), whose bundle and style sheet the hub serves from
 * its own origin under `/docs/api/assets/` — no CDN, and nothing the page CSP (`cspFor`) does not
 * allow: scripts from 'self' plus the page's nonce for the one-line start, inline styles, images from
 * 'self' and data: URLs, fetches to 'self'. Swagger UI's validator badge (an image from
 * validator.swagger.io) is turned off, and so is its deep linking (each operation's summary would be
 * a link inside a button: axe's serious "nested-interactive").
 */

export const REFERENCE_PATH = "/docs/api";
const ASSETS = `${REFERENCE_PATH}/assets/`;
/** the files of swagger-ui-dist the page loads; nothing else of the package is served */
const FILES = new Set(["swagger-ui-bundle.js", "swagger-ui.css"]);

let distDir: string | undefined;
const dist = () =>
  (distDir ??= path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")));

/**
 * Swagger UI's own colours that fall short of WCAG AA contrast (axe, tests/e2e/accessibility.spec.ts):
 * the method badges, version stamps, the document's URL, the Authorize button and the schema
 * expand button, darkened to at least 4.5:1.
 */
const CONTRAST = [
  ".swagger-ui .opblock.opblock-get .opblock-summary-method{background:#0b5cad}",
  ".swagger-ui .opblock.opblock-post .opblock-summary-method{background:#17744b}",
  ".swagger-ui .opblock.opblock-put .opblock-summary-method{background:#9a5b00}",
  ".swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b42318}",
  ".swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#2f6f6a}",
  ".swagger-ui .opblock.opblock-head .opblock-summary-method,.swagger-ui .opblock.opblock-options .opblock-summary-method{background:#6b3fa0}",
  ".swagger-ui .info .title small{background:#4f5561}",
  ".swagger-ui .info .title small.version-stamp{background:#3d6b00}",
  ".swagger-ui .info .url,.swagger-ui .info a{color:#1a5fb4}",
  ".swagger-ui .btn.authorize{color:#17744b;border-color:#17744b}",
  ".swagger-ui .btn.authorize span{color:#17744b}",
  ".swagger-ui .btn.authorize svg{fill:#17744b}",
  ".swagger-ui .json-schema-2020-12-expand-deep-button{color:#555}",
].join("\n");

const page = (nonce: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Health Dataspace Hub</title>
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
<style>${CONTRAST}</style>
</head>
<body>
<header style="padding:1rem 1.25rem 0;font-family:sans-serif">
<a href="/">Health Dataspace Hub</a>
<h1 style="font-size:1.5rem;margin:.5rem 0 0">API reference</h1>
<p style="margin:.25rem 0 0">The document itself: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
</header>
<main id="swagger-ui"></main>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script nonce="${nonce}">window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", validatorUrl: null });</script>
</body>
</html>
`;

/**
 * Answers a request under `/docs/api` (true) or leaves it (false). The page's security headers and CSP
 * nonce are already set by the caller (server/app.ts `pageHeaders`).
 */
export function answerReferencePage(req: IncomingMessage, res: ServerResponse, nonce: string): boolean {
  const pathname = (req.url ?? "/").split("?")[0];
  if (pathname !== REFERENCE_PATH && !pathname.startsWith(ASSETS)) return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendText(res, 405, "Method Not Allowed", { Allow: "GET, HEAD" });
    return true;
  }
  if (pathname === REFERENCE_PATH) {
    sendText(res, 200, page(nonce), {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
    });
    return true;
  }
  const file = pathname.slice(ASSETS.length);
  if (!FILES.has(file)) {
    sendText(res, 404, "Not Found");
    return true;
  }
  send(req, path.join(dist(), file), { maxAge: "1d" })
    .on("error", () => sendText(res, 404, "Not Found"))
    .pipe(res);
  return true;
}
