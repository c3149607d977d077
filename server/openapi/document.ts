import { z } from "zod";
import { SESSION_COOKIE } from "../auth/sessions";
import { ID_PATTERN } from "../http/ids";
import type { Access, HttpMethod, RouteSpec } from "../http/route-table";
import { edgeAnswers, type AnswerSpec, type Contracts, type OperationContract } from "../http/contract";

/**
 * The OpenAPI 3.1 document of the /api, generated from the route table (paths, methods, who may
 * call them) and each route's declaration (server/http/contract.ts: query, path, body, answers by
 * status), the same zod objects the dispatcher parses with, exported by zod 4's own `z.toJSONSchema`
 * (JSON Schema 2020-12, as OpenAPI 3.1 uses it; docs/decisions/0055). The statuses the dispatcher
 * gives on every route of a kind (401, 403, 413, 415, 503) come from `edgeAnswers`. Nothing here is
 * written by hand per route, so a route cannot be missing: the test in this folder checks every path
 * and method of the table against the document.
 */

type Json = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: "object",
  description: "Every failure: `error` says what went wrong (the spec's texts), `detail` adds context.",
  required: ["error"],
  properties: { error: { type: "string" }, detail: { type: "string" } },
  additionalProperties: true,
};

/** `/api/x/:id` → `/api/x/{id}`; the catch-all `:rest*` becomes `{rest}` (it may hold slashes). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)\*?/g, "{$1}");
}

/** each kind of access: the operation's security requirements and the words its description gives */
const ACCESS: Record<Access["kind"], [security: Json[], text: string]> = {
  public: [[], "No session needed."],
  "device-attestation": [[], "No session: the companion app's device attestation in the body is checked."],
  session: [[{ session: [] }], "A session, any role."],
  "session-or-crawler": [
    [{ session: [] }, { crawler: [] }],
    "A session, or the catalogue crawler's bearer token (CRAWLER_TOKEN).",
  ],
  "patient-or-device": [
    [{ session: [] }, { device: [] }],
    "A PATIENT session, or a paired companion app's device-signed request.",
  ],
};

const accessText = (access: Access) =>
  access.kind === "session" && access.roles !== "any"
    ? `A session with one of the roles: ${access.roles.join(", ")}.`
    : ACCESS[access.kind][1];

/** A zod schema as JSON Schema for OpenAPI 3.1, without `$schema`: what a client sends (input) or gets (output). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output" = "input"): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
}

const HAS_BODY: readonly HttpMethod[] = ["POST", "PUT", "PATCH"];
const accepts = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

function pathParameters(
  path: string,
  contract: OperationContract | undefined,
  example: RequestExample | undefined,
): Json[] {
  return [...path.matchAll(/:([A-Za-z]+)(\*?)/g)].map(([, name, rest]) => ({
    name,
    in: "path",
    required: true,
    description: rest ? "the rest of the path (may contain slashes)" : "an identifier (1–200 characters)",
    schema: contract?.params?.[name]
      ? jsonSchemaOf(contract.params[name])
      : rest
        ? { type: "string" }
        : { type: "string", pattern: ID_PATTERN.source },
    example: example?.params?.[name],
  }));
}

function queryParameters(
  contract: OperationContract | undefined,
  example: RequestExample | undefined,
): Json[] {
  const query = contract?.query;
  if (!query) return [];
  return Object.entries(query.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const { description, ...json } = jsonSchemaOf(schema);
    return {
      name,
      in: "query",
      required: !accepts(schema, undefined),
      ...(typeof description === "string" ? { description } : {}),
      schema: json,
      example: example?.query?.[name],
    };
  });
}

/** (an undefined example is dropped with the other undefined fields, in `operation`) */
function answerContent(answer: AnswerSpec, status: number, example: unknown): Json | undefined {
  // a failure's body is the error model, unless its declaration names another (health's 503 is health)
  if (status >= 400 && !answer.schema)
    return { "application/json": { schema: { $ref: "#/components/schemas/Error" }, example } };
  if (!answer.schema) return undefined;
  const content: Json = {
    [answer.contentType ?? "application/json"]: { schema: jsonSchemaOf(answer.schema, "output"), example },
  };
  for (const [type, schema] of Object.entries(answer.alternatives ?? {}))
    content[type] = schema ? { schema: jsonSchemaOf(schema, "output") } : { schema: { type: "string" } };
  return content;
}

function operation(
  route: RouteSpec,
  method: HttpMethod,
  contract: OperationContract | undefined,
  examples: Examples,
): Json {
  const spec = route.methods[method]!;
  const key = `${method} ${route.path}`;
  const request = examples[`${key} request`] as RequestExample | undefined;
  const params = [...pathParameters(route.path, contract, request), ...queryParameters(contract, request)];
  const edge = edgeAnswers(route.path, method, spec.access, !!(contract?.query || contract?.body));
  const answers: Record<number, AnswerSpec> = {
    ...Object.fromEntries(Object.entries(edge).map(([status, description]) => [status, { description }])),
    ...(contract?.answers ?? { 200: { description: "OK (not declared yet)", schema: z.unknown() } }),
  };
  const responses: Json = {};
  for (const [status, answer] of Object.entries(answers).sort(([a], [b]) => Number(a) - Number(b))) {
    const content = answerContent(answer, Number(status), examples[`${key} ${status}`] ?? undefined);
    responses[status] = { description: answer.description || edge[Number(status)] || "Error", content };
  }
  const op: Json = {
    operationId: `${method.toLowerCase()}${route.path
      .replace(/^\/api/, "")
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
    summary: spec.summary,
    description: accessText(spec.access),
    tags: [route.capability],
    security: ACCESS[spec.access.kind][0],
    "x-access": spec.access,
    "x-undeclared": contract ? undefined : true,
    responses,
  };
  if (params.length) op.parameters = params;
  if (HAS_BODY.includes(method) || contract?.body) {
    const body = contract?.body;
    op.requestBody = {
      required: body ? (contract.bodyRequired ?? !accepts(body, {})) : false,
      content: {
        "application/json": {
          schema: body ? jsonSchemaOf(body) : { type: "object", additionalProperties: true },
          example: request?.body,
        },
      },
    };
  }
  return JSON.parse(JSON.stringify(op)) as Json; // drops the undefined fields
}

const jsonSchema = z.record(z.string(), z.unknown()).describe("a JSON Schema 2020-12 (OpenAPI 3.1)");
const media = z.object({
  schema: jsonSchema,
  example: z.unknown().optional().describe("a real request or answer of the seeded store"),
});
/** GET /api/openapi.json's answer: what `buildOpenApiDocument` builds (the JSON Schemas in it are open) */
export const openApiDocumentSchema = z.object({
  openapi: z.literal("3.1.0"),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  tags: z.array(z.object({ name: z.string() })),
  paths: z.record(
    z.string(),
    z.record(
      z.string(),
      z.object({
        operationId: z.string(),
        summary: z.string(),
        description: z.string(),
        tags: z.array(z.string()),
        security: z.array(z.record(z.string(), z.array(z.string()))),
        "x-access": z.record(z.string(), z.unknown()).describe("who may call it (the route table's access)"),
        "x-undeclared": z.literal(true).optional(),
        responses: z.record(
          z.string(),
          z.object({ description: z.string(), content: z.record(z.string(), media).optional() }),
        ),
        parameters: z
          .array(
            z.object({
              name: z.string(),
              in: z.enum(["path", "query"]),
              required: z.boolean(),
              description: z.string().optional(),
              schema: jsonSchema,
              example: z.string().optional(),
            }),
          )
          .optional(),
        requestBody: z.object({ required: z.boolean(), content: z.record(z.string(), media) }).optional(),
      }),
    ),
  ),
  components: z.object({
    schemas: z.record(z.string(), jsonSchema),
    securitySchemes: z.record(z.string(), z.record(z.string(), z.string())),
  }),
});

/**
 * Examples from real requests and answers of the seeded store (examples.json, recorded by the
 * black-box tests and folded in by scripts/openapi-examples.mjs): "METHOD /path STATUS" → the answer's
 * body (null for a 204), "METHOD /path request" → the request of the first success.
 */
export type Examples = Readonly<Record<string, unknown>>;
export interface RequestExample {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  contracts: Contracts,
  examples: Examples = {},
): Json {
  const paths: Json = {};
  for (const route of routes) {
    const item: Json = {};
    for (const method of Object.keys(route.methods) as HttpMethod[]) {
      item[method.toLowerCase()] = operation(route, method, contracts[`${method} ${route.path}`], examples);
    }
    paths[openApiPath(route.path)] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Health Dataspace Hub API",
      version: "2.0.0",
      description:
        "JSON over HTTP under /api (api-spec.md 2.0.0). Every answer is JSON, errors included: " +
        "unknown path 404, a method the path does not have 405 (with Allow), bad input 400. Generated " +
        "from the route table and each route's declaration (server/<capability>/contract.ts): query, " +
        "path, body and one answer per status. Strings are taken as sent: nothing is trimmed before " +
        "a pattern or length is checked, unless a field's description says so.",
    },
    tags: [...new Set(routes.map((r) => r.capability))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description: "The session cookie set by the OpenID sign-in (/auth/login)",
        },
        crawler: { type: "http", scheme: "bearer", description: "CRAWLER_TOKEN of the catalogue crawler" },
        device: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "`Device <jwt>`: a paired companion app's signed request",
        },
      },
    },
  };
}
