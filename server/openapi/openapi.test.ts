import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../http/route-table";
import { buildOpenApiDocument, openApiPath } from "./document";
import { encodedOnce } from "../http/kept/encoded";
import { openApiDocument, openApiHandlers } from "./handlers";
import { ID_PATTERN } from "../http/ids";
import { CONTRACTS } from "./contracts";
import { SESSION_COOKIE } from "../auth/sessions";
import examples from "./examples.json" with { type: "json" };

type Doc = { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

const doc = () => buildOpenApiDocument(ROUTES, CONTRACTS, examples) as unknown as Doc;
const tableOperations = () =>
  ROUTES.flatMap((r) =>
    Object.keys(r.methods).map((m) => `${m.toLowerCase()} ${openApiPath(r.path)}`),
  ).sort();
const documentOperations = (d: Doc) =>
  Object.entries(d.paths)
    .flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`))
    .sort();

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (swagger-parser)", async () => {
    const d = doc();
    expect(d.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(d) as never)).resolves.toBeTruthy();
    // and the validator does refuse a broken one (an operation whose responses are not an object)
    const broken = structuredClone(d);
    broken.paths["/api/health"].get.responses = "none";
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });

  it("names the session cookie the sign-in sets", () => {
    const schemes = (
      doc() as unknown as { components: { securitySchemes: Record<string, { name?: string }> } }
    ).components.securitySchemes;
    expect(schemes.session.name).toBe(SESSION_COOKIE);
  });

  it("lists every path and method of the route table, and nothing else", () => {
    const ops = tableOperations();
    expect(ops.length).toBeGreaterThan(90);
    expect(documentOperations(doc())).toEqual(ops);
  });

  it("would miss a route the table gained: the comparison is not vacuous", () => {
    const fewer = buildOpenApiDocument(ROUTES.slice(1), CONTRACTS) as unknown as Doc;
    expect(documentOperations(fewer)).not.toEqual(tableOperations());
  });

  it("has a declaration for every operation of the table, and none for a route it lacks", () => {
    const keys = new Set(ROUTES.flatMap((r) => Object.keys(r.methods).map((m) => `${m} ${r.path}`)));
    for (const key of Object.keys(CONTRACTS)) expect(keys, key).toContain(key);
    for (const key of keys) expect(CONTRACTS[key], key).toBeDefined();
    const ops = Object.values(doc().paths).flatMap((item) => Object.values(item));
    expect(ops.filter((op) => op["x-undeclared"])).toEqual([]);
  });

  it("states query parameters, path patterns, bodies and every status from the declarations", () => {
    const d = doc();
    const node = d.paths["/api/graph/node"].get as { parameters: { name: string; required: boolean }[] };
    expect(node.parameters).toContainEqual(
      expect.objectContaining({ name: "id", in: "query", required: true }),
    );
    const negotiations = d.paths["/api/negotiations"].post as {
      requestBody: { required: boolean; content: Record<string, { schema: unknown }> };
      responses: Record<string, unknown>;
    };
    expect(negotiations.requestBody.required).toBe(true);
    expect(JSON.stringify(negotiations.requestBody.content["application/json"].schema)).toContain(
      '"required":["participantId","counterPartyAddress","assetId"]',
    );
    expect(Object.keys(negotiations.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "413", "415", "502", "503"]),
    );
    const publish = JSON.stringify(d.paths["/api/catalog"].post.requestBody);
    expect(publish).toContain('"title"');
    const report = d.paths["/api/activity-report"].get as { responses: { 200: { content: object } } };
    expect(Object.keys(report.responses[200].content)).toEqual(["application/json", "text/csv", "text/html"]);
  });

  it("marks the access of each operation: public routes need nothing, role routes say which roles", () => {
    const d = doc();
    expect(d.paths["/api/health"].get.security).toEqual([]);
    expect(d.paths["/api/openapi.json"].get.security).toEqual([]);
    expect(d.paths["/api/admin/tenants"].get.security).toEqual([{ session: [] }]);
    expect(d.paths["/api/admin/tenants"].get.description).toMatch(/CONNECTOR_ADMIN/);
    expect(d.paths["/api/credentials/{id}"].delete.parameters).toEqual([
      {
        name: "id",
        in: "path",
        required: true,
        description: "an identifier (1–200 characters)",
        schema: { type: "string", pattern: ID_PATTERN.source },
        example: expect.stringMatching(ID_PATTERN),
      },
    ]);
  });

  it("is answered from bytes encoded once: the document as built, the same body each time, gzip the same", async () => {
    const built = JSON.stringify(buildOpenApiDocument(ROUTES, CONTRACTS, examples));
    expect(openApiDocument()).toBe(openApiDocument());
    const body = encodedOnce(openApiDocument())!;
    expect(body.raw.toString("utf8")).toBe(built);
    expect(encodedOnce(openApiDocument())).toBe(body);
    expect(gunzipSync(body.gzip()).toString("utf8")).toBe(built);
    const url = new URL("http://hub.test/api/openapi.json");
    const res = await openApiHandlers["GET /api/openapi.json"]({
      request: new Request(url),
      headers: new Headers(),
      head: { method: "GET", url: url.href, headers: new Headers() },
      url,
      query: url.searchParams,
      params: {},
      input: { query: {}, body: undefined },
      user: null,
      services: {},
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe(built);
  });

  it("has an example from a real answer for every operation: its request and a success, each valid by its own schema", () => {
    const d = doc() as unknown as Doc & { components: { schemas: Record<string, unknown> } };
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: "hub:components", $defs: d.components.schemas });
    const valid = (schema: unknown, value: unknown) => {
      const v = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"hub:components#/$defs/')),
      );
      return v(value) ? "" : `${v.errors?.[0]?.instancePath || "/"} ${v.errors?.[0]?.message}`;
    };
    type Media = { schema?: unknown; example?: unknown };
    type Op = {
      parameters?: { name: string; required?: boolean; schema: unknown; example?: unknown }[];
      requestBody?: { required?: boolean; content: Record<string, Media> };
      responses: Record<string, { content?: Record<string, Media> }>;
    };
    const missing: string[] = [];
    const wrong: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(d.paths))
      for (const [method, op] of Object.entries(item as Record<string, Op>)) {
        const key = `${method.toUpperCase()} ${path}`;
        const successes = Object.entries(op.responses).filter(([status]) => Number(status) < 300);
        const answered = successes.filter(
          ([status, r]) => status === "204" || r.content?.["application/json"]?.example !== undefined,
        );
        if (!answered.length && !successes.some(([, r]) => !r.content)) missing.push(`${key}: no success`);
        else if (!answered.length && !(`${key.replace(/\{([^}]+)\}/g, ":$1")} request` in examples))
          missing.push(`${key}: no request`);
        for (const p of op.parameters ?? []) {
          if (p.required && p.example === undefined) missing.push(`${key}: no example of ${p.name}`);
          if (p.example !== undefined && valid(p.schema, p.example)) wrong.push(`${key} ${p.name}`);
        }
        const body = op.requestBody?.content["application/json"];
        if (op.requestBody?.required && body?.example === undefined) missing.push(`${key}: no request body`);
        if (body?.example !== undefined) {
          const why = valid(body.schema, body.example);
          if (why) wrong.push(`${key} request body: ${why}`);
        }
        for (const [status, r] of Object.entries(op.responses))
          for (const [type, media] of Object.entries(r.content ?? {})) {
            if (media.example === undefined || !media.schema) continue;
            checked++;
            const why = valid(media.schema, media.example);
            if (why) wrong.push(`${key} ${status} ${type}: ${why}`);
          }
      }
    expect(missing).toEqual([]);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });
});
