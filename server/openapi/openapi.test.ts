import SwaggerParser from "@apidevtools/swagger-parser";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../http/route-table";
import { buildOpenApiDocument, openApiPath } from "./document";
import { openApiBody, openApiHandlers } from "./handlers";
import { ROUTE_SCHEMAS } from "./schemas";

type Doc = { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

const doc = () => buildOpenApiDocument(ROUTES, ROUTE_SCHEMAS) as unknown as Doc;
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

  it("lists every path and method of the route table, and nothing else", () => {
    const ops = tableOperations();
    expect(ops.length).toBeGreaterThan(90);
    expect(documentOperations(doc())).toEqual(ops);
  });

  it("would miss a route the table gained: the comparison is not vacuous", () => {
    const fewer = buildOpenApiDocument(ROUTES.slice(1), ROUTE_SCHEMAS) as unknown as Doc;
    expect(documentOperations(fewer)).not.toEqual(tableOperations());
  });

  it("takes request bodies from the handlers' zod schemas, keyed by real routes", () => {
    const keys = new Set(ROUTES.flatMap((r) => Object.keys(r.methods).map((m) => `${m} ${r.path}`)));
    for (const key of Object.keys(ROUTE_SCHEMAS)) expect(keys, key).toContain(key);
    const publish = doc().paths["/api/catalog"].post.requestBody as {
      content: { "application/json": { schema: { type: string; properties: Record<string, unknown> } } };
    };
    expect(publish.content["application/json"].schema.type).toBe("object");
    expect(Object.keys(publish.content["application/json"].schema.properties)).toEqual(
      expect.arrayContaining(["title"]),
    );
  });

  it("marks the access of each operation: public routes need nothing, role routes say which roles", () => {
    const d = doc();
    expect(d.paths["/api/health"].get.security).toEqual([]);
    expect(d.paths["/api/openapi.json"].get.security).toEqual([]);
    expect(d.paths["/api/admin/tenants"].get.security).toEqual([{ session: [] }]);
    expect(d.paths["/api/admin/tenants"].get.description).toMatch(/CONNECTOR_ADMIN/);
    expect(d.paths["/api/credentials/{id}"].delete.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
    ]);
  });

  it("is answered from bytes encoded once: the document as built, the same body each time, gzip the same", async () => {
    const built = JSON.stringify(buildOpenApiDocument(ROUTES, ROUTE_SCHEMAS));
    const body = openApiBody();
    expect(body.raw.toString("utf8")).toBe(built);
    expect(openApiBody()).toBe(body);
    expect(gunzipSync(body.gzip()).toString("utf8")).toBe(built);
    const url = new URL("http://hub.test/api/openapi.json");
    const res = await openApiHandlers["GET /api/openapi.json"]({
      request: new Request(url),
      headers: new Headers(),
      head: { method: "GET", url: url.href, headers: new Headers() },
      url,
      query: url.searchParams,
      params: {},
      user: null,
      services: {},
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe(built);
  });
});
