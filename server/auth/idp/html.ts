/**
 * Page shell of the embedded provider's own pages (sign-in, sign-out, errors). Standalone HTML
 * that works under a strict Content-Security-Policy: no scripts, no external resources, no
 * `style` attributes; one `<style>` block (the app allows `style-src 'self' 'unsafe-inline'`).
 */

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Marks a fragment as already-escaped HTML. */
export interface SafeHtml {
  readonly html: string;
}

/** Tagged template: interpolated values are escaped unless they are SafeHtml (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const render = (v: unknown): string => {
    if (Array.isArray(v)) return v.map(render).join("");
    if (v && typeof v === "object" && "html" in v) return (v as SafeHtml).html;
    if (v === undefined || v === null || v === false) return "";
    return escapeHtml(v);
  };
  return { html: strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), "") };
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2733;background:#eef2f6}
main{max-width:46rem;margin:2.5rem auto;padding:0 1rem}
.card{background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15);padding:1.5rem 2rem;margin-bottom:1.5rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.1rem;margin:0 0 .75rem}
.sub{color:#5a6878;margin:0 0 1.25rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password]{width:100%;padding:.55rem .7rem;border:1px solid #9aa7b5;border-radius:.3rem;font:inherit}
input:focus,button:focus{outline:3px solid #8cb8ff;outline-offset:1px}
.actions{display:flex;gap:.75rem;align-items:center;margin-top:1.25rem;flex-wrap:wrap}
button{font:inherit;font-weight:600;padding:.55rem 1.2rem;border-radius:.3rem;border:1px solid #1d5fbf;background:#1d5fbf;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d5fbf}
.error{background:#fdecec;border:1px solid #e3a3a3;color:#8a1c1c;border-radius:.3rem;padding:.6rem .8rem;margin-bottom:1rem}
.note{background:#fff8e1;border:1px solid #ead48c;border-radius:.3rem;padding:.6rem .8rem;margin-top:1.25rem}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.45rem .5rem;border-bottom:1px solid #dde3ea}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef2f6;padding:0 .25rem;border-radius:.2rem}
a{color:#1d5fbf}
`;

export function page(title: string, body: SafeHtml): string {
  return `<!DOCTYPE html>
${
  html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>${title} · Health Dataspace Hub (development sign-in)</title>
      <style>
        ${{ html: STYLE }}
      </style>
    </head>
    <body>
      <main>${body}</main>
    </body>
  </html>`.html
}`;
}

/** A card with a heading, a message and an optional link, for errors and notices. */
export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return page(
    title,
    html`<section class="card">
      <h1>${title}</h1>
      <p>${message}</p>
      ${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ""}
    </section>`,
  );
}
