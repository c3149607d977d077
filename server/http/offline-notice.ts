/**
 * The answer of the office-hours gate while the hosted stack is stopped (DESIGN.md "Modes", api-spec
 * sections 1.4 and 7): 503 with Retry-After, an offline notice for pages and JSON for data routes.
 *
 * Decisions:
 * - The notice is a standalone page (no scripts, no external resources, one <style> block) so it works
 *   while everything behind the gate is down. Its response carries its own strict CSP whose only
 *   allowance is the nonce of that style block; a gate that also sets `cspFor(...)` still permits it.
 * - The JSON body keeps the error model (`error`) and adds `nextOpening` (ISO string or null) and
 *   `reason`; on a hold day `error` says the service is on hold today.
 * - `Cache-Control: no-store`, so no cache keeps serving the notice once the service is open again.
 */

import { formatOpening, type OfficeClosed } from "./office-hours";
import { generateNonce } from "./security-headers";

const TITLE = "Health Dataspace Hub is offline";

export function offlineNoticeHtml(opts: {
  nextOpening: Date | null;
  timeZone: string;
  reason: OfficeClosed["reason"];
  nonce?: string;
}): string {
  const why =
    opts.reason === "hold"
      ? "The hosted stack is on hold today and stays stopped all day."
      : "The hosted stack runs only during office hours and is stopped right now.";
  const when = opts.nextOpening
    ? `It opens again on <time datetime="${escapeHtml(opts.nextOpening.toISOString())}">` +
      `${escapeHtml(formatOpening(opts.nextOpening, opts.timeZone))}</time>.`
    : "No opening time is scheduled yet.";
  const nonce = opts.nonce === undefined ? "" : ` nonce="${escapeHtml(opts.nonce)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${TITLE}</title>
<style${nonce}>
  body { margin: 0; font-family: system-ui, sans-serif; color: #1f2933; background: #f5f7fa; }
  main { max-width: 36rem; margin: 15vh auto; padding: 2rem; background: #fff; border-radius: 0.5rem;
    box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); }
  h1 { margin-top: 0; font-size: 1.5rem; }
  a { color: #0b5fff; }
</style>
</head>
<body>
<main>
<h1>${TITLE}</h1>
<p>${why}</p>
<p>${when}</p>
<p><a href="/api/health">Check the service status</a></p>
</main>
</body>
</html>
`;
}

export function offlineResponse(status: OfficeClosed, kind: "page" | "api", timeZone: string): Response {
  const headers = new Headers({
    "Retry-After": String(status.retryAfterSeconds),
    "Cache-Control": "no-store",
  });
  if (kind === "api") {
    const body = {
      error:
        status.reason === "hold"
          ? "Service unavailable: on hold today"
          : "Service unavailable outside office hours",
      nextOpening: status.nextOpening?.toISOString() ?? null,
      reason: status.reason,
    };
    return Response.json(body, { status: 503, headers });
  }
  const nonce = generateNonce();
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  const html = offlineNoticeHtml({ nextOpening: status.nextOpening, timeZone, reason: status.reason, nonce });
  return new Response(html, { status: 503, headers });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
