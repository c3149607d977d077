import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../server/http/route-table";
import { checkAnswer } from "../support/answer-check";
import { startTestServer, type TestServer } from "../support/server";

/** GET /api/openapi.json on the real server: public, JSON, a valid OpenAPI 3.1 document of the whole route table. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe("GET /api/openapi.json", () => {
  it("answers without a session a valid OpenAPI 3.1 document listing every path and method", async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    await SwaggerParser.validate(structuredClone(doc) as never);
    for (const route of ROUTES) {
      const item = doc.paths[route.path.replace(/:([A-Za-z]+)\*?/g, "{$1}")];
      expect(item, route.path).toBeDefined();
      for (const method of Object.keys(route.methods)) {
        expect(item[method.toLowerCase()], `${method} ${route.path}`).toBeDefined();
      }
    }
  });

  it("answers 405 JSON to other methods, like every route", async () => {
    const res = await fetch(`${server.url}/api/openapi.json`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });

  it("is what the answers are checked against: a status, content type or body it does not list is caught", async () => {
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    const type = "application/json; charset=utf-8";
    // real answers fit
    const res = await fetch(`${server.url}/api/health`);
    expect(
      checkAnswer("GET", "/api/health", res.status, type, Buffer.from(await res.text())),
    ).toBeUndefined();
    expect(checkAnswer("GET", "/api/graph/node", 400, type, json({ error: "x" }))).toBeUndefined();
    // and what the document does not say is found
    expect(checkAnswer("GET", "/api/health", 418, type, json({}))).toMatch(/status 418 is not listed/);
    expect(checkAnswer("GET", "/api/health", 200, "text/plain", Buffer.from("up"))).toMatch(/content type/);
    expect(checkAnswer("GET", "/api/health", 200, type, json({ up: true }))).toMatch(
      /required property 'status'/,
    );
    expect(checkAnswer("GET", "/api/catalog", 200, type, json({ id: "x" }))).toMatch(/must be array/);
    expect(checkAnswer("GET", "/api/catalog", 401, type, json({ message: "no" }))).toMatch(/'error'/);
    // every answer this file's server gave fits
    expect(server.mismatches).toEqual([]);
  });
});
