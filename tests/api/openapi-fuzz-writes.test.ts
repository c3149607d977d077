import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { checkAnswer, compileSchema, statedRefusal } from "../support/answer-check";
import { mutationOf, schemaArbitrary, type Schema } from "../support/schema-arbitrary";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * A fuzzer driven only by GET /api/openapi.json (issue 39, docs/decisions/0057): every operation with
 * a request body, a path parameter or a method other than GET, on a throw-away store, as each of the
 * seven personas. Path parameters, query parameters and JSON bodies are generated from the document's
 * schemas (valid ones), then mutated (invalid ones); ajv decides which they are. Findings:
 * - a server error (5xx other than the spec's 502/503 upstream answers);
 * - a status, content type or body the document does not list for the operation (answer-check.ts);
 * - a request valid by the document refused as invalid (400) for a reason its 400 answer does not state
 *   (a reason the schema cannot hold, e.g. a dataset id that must exist, is stated in that description);
 * - a request invalid by the document answered with a success: the document is stricter than the server.
 * Seeded, so a run is repeatable; `FUZZ_RUNS` scales the runs per operation (default 24).
 */

type Param = { name: string; in: string; required?: boolean; schema?: Schema };
interface Operation {
  parameters?: Param[];
  responses?: Record<string, { description?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
/** the seven personas (one patient: the second is the same persona for another record) */
const USERS = [...new Map(PERSONAS.map((p) => [p.roles.join(","), p.username])).values()];

let server: TestServer;
let doc: Doc;
const as: Record<string, Signed> = {};
beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Doc;
  for (const u of USERS) as[u] = await signIn(server.url, u);
}, 60_000);
afterAll(async () => server?.close());

interface Case {
  persona: string;
  path: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

/** strings outside most parameters' schemas: empty, blank, leading control character, too long, odd */
const BAD_STRINGS = ["", " ", "\u000bx", "..", "a/b", "é", "-1", "x".repeat(201)];

/** in a path: not "..", which the URL resolves away before it is sent */
const BAD_PATH_STRINGS = BAD_STRINGS.filter((v) => v !== "..");

const stringOfValue = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** the parameters of one place as a record of arbitraries, required ones always present */
function paramsArbitrary(params: Param[], components: Record<string, Schema>) {
  return fc.record(
    Object.fromEntries(
      params.map((p) => [p.name, schemaArbitrary(p.schema ?? {}, components).map(stringOfValue)]),
    ),
    { requiredKeys: params.filter((p) => p.required || p.in === "path").map((p) => p.name) },
  ) as fc.Arbitrary<Record<string, string>>;
}

describe("fuzzing every writing operation and every operation with path parameters from the document alone", () => {
  it("finds no server error, no unlisted answer, no valid request refused and no invalid one accepted", async () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        method !== "get" || path.includes("{") ? [{ path, method: method.toUpperCase(), op }] : [],
      ),
    );
    expect(ops.length).toBeGreaterThan(40);
    const findings = new Map<string, string>();
    let requests = 0;
    const components = doc.components.schemas;
    for (const { path, method, op } of ops) {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === "path");
      const queryParams = params.filter((p) => p.in === "query");
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
      const validParam = new Map(params.map((p) => [p.name, compileSchema(p.schema ?? {})]));
      const validBody = bodySchema ? compileSchema(bodySchema) : undefined;
      /** what makes a case invalid by the document, or undefined when it is valid */
      const invalidity = (c: Case): string | undefined => {
        for (const p of params) {
          const v = (p.in === "path" ? c.path : c.query)[p.name];
          if (v === undefined) {
            if (p.required || p.in === "path") return `${p.name} missing`;
            continue;
          }
          if (!validParam.get(p.name)!(v)) return `${p.name} invalid`;
        }
        if (validBody && c.body === undefined && op.requestBody?.required) return "body missing";
        if (validBody && c.body !== undefined && !validBody(c.body)) return "body invalid";
        return undefined;
      };
      const valid = fc.record({
        persona: fc.constantFrom(...USERS),
        path: paramsArbitrary(pathParams, components),
        query: paramsArbitrary(queryParams, components),
        body: bodySchema ? schemaArbitrary(bodySchema, components) : fc.constant(undefined),
      });
      const invalid = valid.chain((c) =>
        fc.oneof(
          ...(bodySchema ? [mutationOf(c.body).map((body) => ({ ...c, body }))] : []),
          ...(queryParams.length
            ? [
                fc
                  .tuple(
                    fc.constantFrom(...queryParams.map((p) => p.name)),
                    fc.constantFrom(undefined, ...BAD_STRINGS),
                  )
                  .map(([name, v]) => {
                    const query = { ...c.query };
                    if (v === undefined) delete query[name];
                    else query[name] = v;
                    return { ...c, query };
                  }),
              ]
            : []),
          ...(pathParams.length
            ? [
                fc
                  .tuple(
                    fc.constantFrom(...pathParams.map((p) => p.name)),
                    fc.constantFrom(...BAD_PATH_STRINGS),
                  )
                  .map(([name, v]) => ({ ...c, path: { ...c.path, [name]: v } })),
              ]
            : [fc.constant(c)]),
        ),
      );
      const send = async (c: Case) => {
        // a dot segment ("." or "..", also as %2E) is resolved away by the URL before it is sent
        if (Object.values(c.path).some((v) => v === "." || v === "..")) return;
        const url =
          path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(c.path[name] ?? "")) +
          (() => {
            const q = new URLSearchParams(
              Object.entries(c.query ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"),
            );
            return q.size ? `?${q}` : "";
          })();
        const hasBody = c.body !== undefined && method !== "GET" && method !== "DELETE";
        let res = await as[c.persona].api(url, {
          method,
          ...(hasBody
            ? { body: JSON.stringify(c.body), headers: { "content-type": "application/json" } }
            : {}),
        });
        requests++;
        // an operation may end the persona's session (sign-out, account deletion): a new one, once
        if (res.status === 401) {
          as[c.persona] = await signIn(server.url, c.persona);
          res = await as[c.persona].api(url, {
            method,
            ...(hasBody
              ? { body: JSON.stringify(c.body), headers: { "content-type": "application/json" } }
              : {}),
          });
          requests++;
        }
        const body = Buffer.from(await res.arrayBuffer());
        const key = `${method} ${path}`;
        const note = (problem: string) => {
          if (!findings.has(`${key}: ${problem.slice(0, 80)}`))
            findings.set(
              `${key}: ${problem.slice(0, 80)}`,
              `${c.persona} ${method} ${url.slice(0, 160)} ${hasBody ? JSON.stringify(c.body).slice(0, 300) : ""} → ${res.status} ${body.toString("utf8").slice(0, 200)}`,
            );
        };
        if (res.status >= 500 && res.status !== 502 && res.status !== 503) note(`server error ${res.status}`);
        const problem = checkAnswer(method, url, res.status, res.headers.get("content-type") ?? "", body);
        if (problem) note(problem);
        const why = invalidity(c);
        if (!why && res.status === 400 && !statedRefusal(op, body.toString("utf8")))
          note(`valid by the document, refused: ${body.toString("utf8")}`);
        if (why && res.status >= 200 && res.status < 300) note(`invalid by the document (${why}), accepted`);
      };
      await fc.assert(fc.asyncProperty(valid, send), { numRuns: RUNS, seed: 39 });
      await fc.assert(fc.asyncProperty(invalid, send), { numRuns: Math.ceil(RUNS / 2), seed: 57 });
    }
    const report = [...findings].map(([k, v]) => `${k}\n    e.g. ${v}`);
    console.log(
      `openapi write fuzzer: ${requests} requests, ${ops.length} operations, ${findings.size} findings`,
    );
    expect(report, report.join("\n")).toEqual([]);
  }, 300_000);
});
