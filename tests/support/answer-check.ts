import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { mkdirSync, writeFileSync } from "node:fs";
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from "node:http";
import path from "node:path";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { matchRoute } from "../../server/http/route-table";
import { buildOpenApiDocument, openApiPath } from "../../server/openapi/document";
import { CONTRACTS } from "../../server/openapi/contracts";
import { ROUTES } from "../../server/http/route-table";

/**
 * Every /api answer of a black-box test server checked against the OpenAPI document (issue 39,
 * docs/decisions/0055): its status is one the operation lists, its content type one that status
 * lists, and its JSON body valid by that status's schema (ajv, JSON Schema 2020-12). The tests'
 * server helper (server.ts) watches each server it starts; what does not fit fails the test file
 * when the server is closed, so the document cannot drift from what the server answers.
 */

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

export interface AnswerMismatch {
  request: string;
  status: number;
  problem: string;
}

let compiled: { doc: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function documentAndValidator() {
  if (!compiled) {
    const doc = buildOpenApiDocument(ROUTES, CONTRACTS);
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
    const components = (doc.components as { schemas: Json }).schemas;
    ajv.addSchema({ $id: "hub:components", $defs: components });
    compiled = { doc, ajv, validators: new Map() };
  }
  return compiled;
}

/** the schema with the document's component references pointed at the registered components */
const withComponents = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"hub:components#/$defs/'));

/** a validator of a schema of the document (a request body's, a parameter's), its $refs resolved */
export function compileSchema(schema: unknown): ValidateFunction {
  return documentAndValidator().ajv.compile(withComponents(schema) as Json);
}

/**
 * A refusal the document states: the operation's 400 description quotes refusal texts in backticks,
 * `<name>` standing for any value (e.g. `Unknown dataset: <id> (use an id of GET /api/catalog)`: a
 * rule no schema can hold, here that the dataset must exist); the error's text starts like one of them.
 */
export function statedRefusal(
  op: { responses?: Record<string, { description?: string }> },
  answer: string,
): boolean {
  let text = "";
  try {
    text = String((JSON.parse(answer) as { error?: unknown }).error ?? "");
  } catch {
    return false;
  }
  const templates = [...(op.responses?.["400"]?.description ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return templates.some((t) =>
    new RegExp(
      `^${t
        .split(/<[^>]+>/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[\\s\\S]*")}`,
    ).test(text),
  );
}

/** what is wrong with one answer, by the document; undefined when it fits (or is not an operation's) */
export function checkAnswer(
  method: string,
  url: string,
  status: number,
  contentType: string | undefined,
  body: Buffer,
  doc?: Json,
): string | undefined {
  const { doc: built, ajv, validators } = documentAndValidator();
  const document = doc ?? built;
  const pathname = new URL(url, "http://hub.test").pathname;
  if (method === "HEAD" || method === "OPTIONS") return undefined;
  const match = matchRoute(method, pathname);
  // unknown paths (404) and methods a path does not have (405) belong to no operation
  if (match.kind !== "match") return undefined;
  const path = openApiPath(match.match.route.path);
  const op = (document.paths as Record<string, Record<string, Operation>>)[path]?.[method.toLowerCase()];
  if (!op) return `no operation ${method} ${path} in the document`;
  const answer = op.responses[String(status)];
  if (!answer) return `status ${status} is not listed (listed: ${Object.keys(op.responses).join(", ")})`;
  if (!answer.content) return body.length ? `a body where the document lists none` : undefined;
  if (status === 204 || body.length === 0) return undefined;
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const media = answer.content[type];
  if (!media)
    return `content type ${type || "(none)"} is not listed (listed: ${Object.keys(answer.content).join(", ")})`;
  if (type !== "application/json" || !media.schema) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return "the body is not JSON";
  }
  const key = `${method} ${path} ${status}`;
  let validate = doc ? undefined : validators.get(key);
  if (!validate) {
    validate = ajv.compile(withComponents(media.schema) as Json);
    if (!doc) validators.set(key, validate);
  }
  if (validate(value)) return undefined;
  const e = validate.errors?.[0];
  return `body does not fit the schema: ${e?.instancePath || "/"} ${e?.message ?? ""}`;
}

function decoded(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? "").toLowerCase()) {
    case "gzip":
      return gunzipSync(body);
    case "br":
      return brotliDecompressSync(body);
    case "deflate":
      return inflateSync(body);
    default:
      return body;
  }
}

function headerOf(headers: OutgoingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v);
}

/** writeHead's headers (object, flat array or pairs) as an object with lower-case names */
function headersOfWriteHead(args: unknown[]): OutgoingHttpHeaders {
  const h = args.find((a) => typeof a === "object" && a !== null);
  const out: OutgoingHttpHeaders = {};
  if (Array.isArray(h)) {
    if (Array.isArray(h[0])) for (const [k, v] of h as [string, string][]) out[k.toLowerCase()] = v;
    else for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i]).toLowerCase()] = h[i + 1] as string;
  } else if (h) {
    for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v as string;
  }
  return out;
}

/**
 * Watches every /api answer of `server` (before the app's own listener sees the request); the
 * answers that do not fit the document are collected in the returned list.
 */
export function watchAnswers(server: Server): AnswerMismatch[] {
  const mismatches: AnswerMismatch[] = [];
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    if (!url.startsWith("/api/") && url !== "/api") return;
    const chunks: Buffer[] = [];
    const sent = EXAMPLES_DIR ? recordRequestBody(req) : undefined;
    let written: OutgoingHttpHeaders = {};
    const take = (chunk: unknown, enc?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === "function") return;
      chunks.push(
        typeof chunk === "string"
          ? Buffer.from(chunk, typeof enc === "string" ? (enc as BufferEncoding) : "utf8")
          : Buffer.from(chunk as Uint8Array),
      );
    };
    const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    (res as unknown as { writeHead: unknown }).writeHead = (...a: unknown[]) => {
      written = { ...written, ...headersOfWriteHead(a) };
      return writeHead(...a);
    };
    (res as unknown as { write: unknown }).write = (...a: unknown[]) => {
      take(a[0], a[1]);
      return write(...a);
    };
    (res as unknown as { end: unknown }).end = (...a: unknown[]) => {
      take(a[0], a[1]);
      return end(...a);
    };
    res.once("finish", () => {
      const headers = { ...res.getHeaders(), ...written };
      const method = req.method ?? "GET";
      try {
        const body = decoded(Buffer.concat(chunks), headerOf(headers, "content-encoding"));
        const problem =
          res.statusCode >= 500 && res.statusCode !== 502 && res.statusCode !== 503
            ? `server error ${res.statusCode}`
            : checkAnswer(method, url, res.statusCode, headerOf(headers, "content-type"), body);
        if (!problem) keepExample(method, url, res.statusCode, body, sent);
        if (problem)
          mismatches.push({ request: `${method} ${url.slice(0, 200)}`, status: res.statusCode, problem });
      } catch (e) {
        mismatches.push({ request: `${method} ${url}`, status: res.statusCode, problem: String(e) });
      }
    });
  });
  return mismatches;
}

/**
 * With HUB_OPENAPI_EXAMPLES=<dir>: for each operation, the first JSON answer of each status (one that
 * fits the document) and, with the first success, the request that got it (its query and JSON body),
 * written to <dir>/examples-<pid>.json for `scripts/openapi-examples.mjs` to fold into
 * server/openapi/examples.json (real answers of the seeded store as the document's examples).
 */
const EXAMPLES_DIR = process.env.HUB_OPENAPI_EXAMPLES;
const seen: Record<string, unknown> = {};

/** the bytes of a request body as they arrive (a copy of what the parser pushes; the stream is left as it is) */
function recordRequestBody(req: IncomingMessage): Buffer[] {
  const parts: Buffer[] = [];
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk && parts.length < 64) parts.push(Buffer.from(chunk as Uint8Array));
    return push(chunk, encoding);
  };
  return parts;
}

function keepExample(method: string, url: string, status: number, body: Buffer, sent?: Buffer[]) {
  if (!EXAMPLES_DIR || status < 200 || (status >= 300 && status < 400) || status >= 500) return;
  const where = new URL(url, "http://hub.test");
  const match = matchRoute(method, where.pathname);
  if (match.kind !== "match") return;
  const operation = `${method} ${match.match.route.path}`;
  const key = `${operation} ${status}`;
  if (key in seen) return;
  let answer: unknown = null;
  if (body.length) {
    try {
      answer = JSON.parse(body.toString("utf8"));
    } catch {
      return;
    }
  } else if (status !== 204) return;
  seen[key] = answer;
  if (status < 300 && !(`${operation} request` in seen)) {
    const request: Record<string, unknown> = {};
    const params = match.match.params;
    if (Object.keys(params).length) request.params = params;
    if (where.search) request.query = Object.fromEntries(where.searchParams);
    const raw = Buffer.concat(sent ?? []).toString("utf8");
    if (raw) {
      try {
        request.body = JSON.parse(raw);
      } catch {
        /* not JSON: no example */
      }
    }
    seen[`${operation} request`] = request;
  }
  // written at once (a test worker may end without an "exit" event): only when recording examples
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  writeFileSync(path.join(EXAMPLES_DIR, `examples-${process.pid}.json`), JSON.stringify(seen));
}

/** the mismatches as one error message, or undefined when there are none */
export function mismatchReport(mismatches: readonly AnswerMismatch[]): string | undefined {
  if (!mismatches.length) return undefined;
  const lines = [...new Set(mismatches.map((m) => `${m.request} → ${m.status}: ${m.problem}`))];
  return `${mismatches.length} answers do not fit the OpenAPI document (/api/openapi.json):\n${lines.slice(0, 40).join("\n")}`;
}
