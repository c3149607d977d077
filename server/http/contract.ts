import type { z } from "zod";
import { invalidFields, fieldErrorsOfIssues } from "./field-errors";
import { isValidId, invalidIdMessage } from "./ids";
import type { Access, HttpMethod } from "./routes/types";

/**
 * The declaration of one operation of the route table (docs/decisions/0055): what a client sends
 * (query, path parameters, body) and what it gets back (one answer per status). Each capability
 * writes the declarations of its routes in its `contract.ts`, keyed by route key ("GET /api/graph/node");
 * the route wiring binds them like the handlers (server/openapi/contracts.ts). From the same objects:
 * the dispatcher parses query, path and body before the handler (`parseInput`), the OpenAPI document
 * is generated (server/openapi/document.ts), and the black-box tests check every answer against it.
 */

export interface AnswerSpec {
  description: string;
  /** the body's schema; none for a 204 or an answer whose body is not described */
  schema?: z.ZodType;
  /** default application/json */
  contentType?: string;
  /** more content types the same status answers with (e.g. text/csv on ?format=csv) */
  alternatives?: Readonly<Record<string, z.ZodType | undefined>>;
}

export interface OperationContract {
  /** the query parameters; values are the first of each name, as strings (URLSearchParams.get) */
  query?: z.ZodObject;
  /** the path parameters' schemas by name (default: ID_PATTERN of ids.ts, the identifier syntax) */
  params?: Readonly<Record<string, z.ZodType>>;
  /** the JSON request body; `bodyRequired` false when an empty body is accepted */
  body?: z.ZodType;
  bodyRequired?: boolean;
  /**
   * "handler": the body is documented by `body` but parsed by the service itself, with the same schema
   * objects, because its 400 texts name exactly the fields that are missing ("title, purpose are
   * required"), which one static message per field cannot say (the access body's routes).
   */
  bodyParsedBy?: "handler";
  /** what the handler answers, by status (success and the handler's own errors) */
  answers: Readonly<Record<number, AnswerSpec>>;
}

/** the declarations by route key ("POST /api/negotiations") */
export type Contracts = Readonly<Record<string, OperationContract>>;

/** What a handler receives parsed: the declared query, body and path parameters (raw when undeclared). */
export interface ParsedInput {
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * The 400 text of a failed parse: the first issue's message as written when it names its field (the
 * spec's texts, e.g. "participantId query parameter is required"), else `field: message`. The field
 * errors go along for the views' forms.
 */
export function parseFailure(issues: readonly z.core.$ZodIssue[]) {
  const fields = fieldErrorsOfIssues(issues);
  const first = issues[0];
  const field = first?.path.length ? String(first.path[0]) : "";
  const names = field && new RegExp(`(^|[^\\w])${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\w]|$)`);
  const text =
    !first || !names || names.test(first.message)
      ? (first?.message ?? "invalid input")
      : `${fields[0].path}: ${first.message}`;
  return invalidFields(text, fields);
}

/** The parsed query of a handler's context, typed by its declared schema (the dispatcher parsed it with that schema). */
export const parsedQuery = <S extends z.ZodType>(ctx: { input: ParsedInput }, _schema: S) =>
  ctx.input.query as z.output<S>;

/** The parsed body of a handler's context, typed by its declared schema (the dispatcher parsed it with that schema). */
export const parsedBody = <S extends z.ZodType>(ctx: { input: ParsedInput }, _schema: S) =>
  ctx.input.body as z.output<S>;

/**
 * The body the dispatcher handed on, as an object for a service's own parser: the declaration's
 * output, or the JSON object as sent when the service parses it itself (`bodyParsedBy: "handler"`)
 * or none is declared; `{}` when the request had none.
 */
export const sentBody = (ctx: { input: ParsedInput }) => (ctx.input.body ?? {}) as Record<string, unknown>;

/** an integer query value its declaration (`intQuery`) has checked, or `def` when absent or empty (handler.ts `intParam`) */
export const queryInt = (value: unknown, def: number) =>
  typeof value === "string" && value !== "" ? Number(value) : def;

/** The query as the object the schema reads: each name's first value. */
export function queryValues(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of query) if (!(k in out)) out[k] = v;
  return out;
}

/** Parses the declared query (and path parameters) of a request; 400 with the declaration's text. */
export function parseQuery(contract: OperationContract | undefined, query: URLSearchParams) {
  if (!contract?.query) return undefined;
  const r = contract.query.safeParse(queryValues(query));
  if (!r.success) throw parseFailure(r.error.issues);
  return r.data as Record<string, unknown>;
}

/** Path parameters: the declared schema, else the identifier syntax of server/http/ids.ts (400 otherwise). */
export function checkParams(contract: OperationContract | undefined, params: Record<string, string>) {
  for (const [name, value] of Object.entries(params)) {
    const schema = contract?.params?.[name];
    if (schema ? !schema.safeParse(value).success : name !== "rest" && !isValidId(value))
      throw invalidFields(invalidIdMessage(name), [{ path: name, message: "invalid" }]);
  }
}

/** Parses a JSON object body with the declared schema; 400 with the declaration's text. */
export function parseBody(contract: OperationContract | undefined, body: unknown): unknown {
  if (!contract?.body || contract.bodyParsedBy === "handler") return body;
  const r = contract.body.safeParse(body ?? {});
  if (!r.success) throw parseFailure(r.error.issues);
  return r.data;
}

const BODY_METHODS: readonly HttpMethod[] = ["POST", "PUT", "PATCH", "DELETE"];

/**
 * The answers the dispatcher itself gives before (or around) any handler, by status: what every
 * operation of this access and method can answer whatever its handler does (api-handler.ts,
 * node-adapter.ts, methods.ts).
 */
export function edgeAnswers(
  path: string,
  method: HttpMethod,
  access: Access,
  hasInput: boolean,
): Record<number, string> {
  const out: Record<number, string> = {};
  if (hasInput || BODY_METHODS.includes(method) || path.includes(":"))
    out[400] = "Bad input (query, path parameter or body); nothing was changed";
  if (access.kind !== "public") out[401] = "No session or credential";
  const roleBound =
    (access.kind === "session" && access.roles !== "any") || access.kind === "patient-or-device";
  if (roleBound || BODY_METHODS.includes(method))
    out[403] = roleBound
      ? "The caller's role does not allow this" +
        (BODY_METHODS.includes(method) ? ", or a cross-origin request was refused" : "")
      : "Cross-origin request refused";
  if (BODY_METHODS.includes(method)) {
    out[413] = "Request body too large";
    out[415] = "Content-Type must be application/json";
  }
  out[404] = "Not found; also every operation in static mode (the API is off)";
  if (path !== "/api/health")
    out[503] = "Outside the office hours, or the store or graph database is unavailable (Retry-After)";
  return out;
}
