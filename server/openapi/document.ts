import { z } from "zod";
import type { Access, HttpMethod, RouteSpec } from "../http/route-table";
import type { RouteSchemas } from "./schemas";

/**
 * The OpenAPI 3.1 document of the /api, generated from the route table (paths, methods, who may
 * call them) and the zod schemas the handlers parse request bodies with (zod 4's
 * `z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses it). Nothing here is written by
 * hand per route, so a route cannot be missing: the test in this folder checks every path and
 * method of the table against the document.
 */

export const API_VERSION = "2.0.0";
export const SESSION_COOKIE = "app-auth.session-token";

type Json = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: "object",
  description: "Every failure: `error` says what went wrong (the spec's texts), `detail` adds context.",
  required: ["error"],
  properties: { error: { type: "string" }, detail: { type: "string" } },
  additionalProperties: true,
};

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** `/api/x/:id` → `/api/x/{id}`; the catch-all `:rest*` becomes `{rest}` (it may hold slashes). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)\*?/g, "{$1}");
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/:([A-Za-z]+)(\*?)/g)].map(([, name, rest]) => ({
    name,
    in: "path",
    required: true,
    description: rest ? "the rest of the path (may contain slashes)" : undefined,
    schema: { type: "string" },
  }));
}

function security(access: Access): Json[] {
  switch (access.kind) {
    case "public":
    case "device-attestation":
      return [];
    case "session":
      return [{ session: [] }];
    case "session-or-crawler":
      return [{ session: [] }, { crawler: [] }];
    case "patient-or-device":
      return [{ session: [] }, { device: [] }];
  }
}

function accessText(access: Access): string {
  switch (access.kind) {
    case "public":
      return "No session needed.";
    case "device-attestation":
      return "No session: the companion app's device attestation in the body is checked.";
    case "session":
      return access.roles === "any"
        ? "A session, any role."
        : `A session with one of the roles: ${access.roles.join(", ")}.`;
    case "session-or-crawler":
      return "A session, or the catalogue crawler's bearer token (CRAWLER_TOKEN).";
    case "patient-or-device":
      return "A PATIENT session, or a paired companion app's device-signed request.";
  }
}

/** A zod schema as JSON Schema for OpenAPI 3.1: what a client sends (input side), without `$schema`. */
export function jsonSchemaOf(schema: z.ZodType): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as Json;
  return rest;
}

const HAS_BODY: readonly HttpMethod[] = ["POST", "PUT", "PATCH"];

function operation(route: RouteSpec, method: HttpMethod, schemas: RouteSchemas | undefined): Json {
  const spec = route.methods[method]!;
  const params = pathParameters(route.path);
  const responses: Json = {
    "2XX": { description: "Success: a JSON body (204 has none)", content: { "application/json": {} } },
    "400": errorResponse("Bad input; nothing was changed"),
    ...(spec.access.kind === "public" ? {} : { "401": errorResponse("No session or credential") }),
    ...(spec.access.kind === "session" && spec.access.roles !== "any"
      ? { "403": errorResponse("The caller's role does not allow this") }
      : {}),
    "404": errorResponse("Not found"),
    "5XX": errorResponse("The hub or an upstream service failed, or the service is outside its office hours"),
  };
  const op: Json = {
    operationId: `${method.toLowerCase()}${route.path
      .replace(/^\/api/, "")
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
    summary: spec.summary,
    description: accessText(spec.access),
    tags: [route.capability],
    security: security(spec.access),
    "x-access": spec.access,
    responses,
  };
  if (params.length) op.parameters = params;
  if (HAS_BODY.includes(method)) {
    op.requestBody = {
      required: schemas?.body !== undefined,
      content: {
        "application/json": {
          schema: schemas?.body ? jsonSchemaOf(schemas.body) : { type: "object", additionalProperties: true },
        },
      },
    };
  }
  return JSON.parse(JSON.stringify(op)) as Json; // drops the undefined fields
}

export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  schemas: Readonly<Record<string, RouteSchemas>>,
): Json {
  const paths: Json = {};
  for (const route of routes) {
    const item: Json = {};
    for (const method of Object.keys(route.methods) as HttpMethod[]) {
      item[method.toLowerCase()] = operation(route, method, schemas[`${method} ${route.path}`]);
    }
    paths[openApiPath(route.path)] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Health Dataspace Hub API",
      version: API_VERSION,
      description:
        "JSON over HTTP under /api (api-spec.md 2.0.0). Every answer is JSON, errors included: " +
        "unknown path 404, wrong method 405, bad input 400. Generated from the route table and the " +
        "handlers' zod schemas.",
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
