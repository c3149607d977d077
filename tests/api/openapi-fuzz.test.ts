import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAnswer, compileSchema, statedRefusal } from "../support/answer-check";
import { schemaArbitrary, type Schema } from "../support/schema-arbitrary";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * A fuzzer driven only by GET /api/openapi.json (issue 39): for every read operation without path
 * parameters, queries built from the document's own parameters (each left out, empty, or a random
 * string, or a value generated from the parameter's schema) are sent as two personas; every answer
 * must be a status the operation lists, of a listed content type and schema, and never a server
 * error; and a query valid by the document is not refused (400) for a reason the document does not
 * state (answer-check.ts `statedRefusal`).
 */

type Param = { name: string; in: string; required?: boolean; schema?: Schema };
type Op = { parameters?: Param[]; responses?: Record<string, { description?: string }> };
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };

let server: TestServer;
let doc: Doc;
const as: Record<string, Signed> = {};
beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Doc;
  for (const u of ["admin", "researcher"]) as[u] = await signIn(server.url, u);
});
afterAll(async () => server?.close());

const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(""),
  fc.string({ maxLength: 12 }),
  fc.constantFrom("1", "0", "-1", "true", "alpha", "../x", "9999999999"),
);

describe("fuzzing the read operations from the document alone", () => {
  it("finds no server error and no status, content type or body the document does not list", async () => {
    const reads = Object.entries(doc.paths).flatMap(([path, item]) =>
      item.get && !path.includes("{") && path !== "/api/compliance/tck" ? [{ path, op: item.get }] : [],
    );
    expect(reads.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const { path, op } of reads) {
      const params = (op.parameters ?? []).filter((p) => p.in === "query");
      const validOf = new Map(params.map((p) => [p.name, compileSchema(p.schema ?? {})]));
      const valid = (query: Record<string, string | undefined>) =>
        params.every((p) =>
          query[p.name] === undefined ? !p.required : validOf.get(p.name)!(query[p.name]),
        );
      const fromSchema = (p: Param) =>
        schemaArbitrary(p.schema ?? {}, doc.components.schemas).map((v) =>
          typeof v === "string" ? v : JSON.stringify(v),
        );
      await fc.assert(
        fc.asyncProperty(
          fc.record(Object.fromEntries(params.map((p) => [p.name, fc.oneof(value, fromSchema(p))]))),
          fc.constantFrom("admin", "researcher"),
          async (query, persona) => {
            const q = new URLSearchParams(
              Object.entries(query).filter((e): e is [string, string] => typeof e[1] === "string"),
            );
            const url = `${path}${q.size ? `?${q}` : ""}`;
            const res = await as[persona].api(url);
            const body = Buffer.from(await res.arrayBuffer());
            const problem = checkAnswer("GET", url, res.status, res.headers.get("content-type") ?? "", body);
            if (res.status >= 500 && res.status !== 502 && res.status !== 503)
              problems.push(`${url}: ${res.status}`);
            if (problem) problems.push(`${persona} ${url}: ${problem}`);
            if (res.status === 400 && valid(query) && !statedRefusal(op, body.toString("utf8")))
              problems.push(`${persona} ${url}: valid by the document, refused: ${body.toString("utf8")}`);
          },
        ),
        { numRuns: 12, seed: 39 },
      );
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
