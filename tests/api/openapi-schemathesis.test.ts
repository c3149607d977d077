import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema, statedRefusal } from "../support/answer-check";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * What Schemathesis, driven only by GET /api/openapi.json (scripts/schemathesis.ts, docs/decisions/0082),
 * found where the document and the server disagreed, each tried again against the real server.
 */

type Param = { name: string; in: string; schema?: unknown };
type Op = {
  parameters?: Param[];
  responses?: Record<string, { description?: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
};
type Doc = { paths: Record<string, Record<string, Op>> };
const bodySchema = (path: string) =>
  compileSchema(doc.paths[path].post.requestBody?.content["application/json"].schema);

let server: TestServer;
let doc: Doc;
let patient: Signed;
let admin: Signed;
let regulator: Signed;
beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Doc;
  patient = await signIn(server.url, "patient1");
  admin = await signIn(server.url, "admin");
  regulator = await signIn(server.url, "regulator");
});
afterAll(async () => server?.close());

describe("a path the document lists answers the methods it lists there", () => {
  it("answers 405 with that path's Allow, not a templated path's answer (ST204, ST205)", async () => {
    for (const [method, path, allow] of [
      ["PATCH", "/api/participants/me", "GET"],
      ["DELETE", "/api/credentials/definitions", "GET"],
      ["DELETE", "/api/credentials/request", "POST"],
      ["GET", "/api/auth/eudi/start", "POST"],
      ["POST", "/api/auth/eudi/status", "GET"],
    ]) {
      expect(Object.keys(doc.paths[path]).map((m) => m.toUpperCase())).toEqual([allow]);
      const res = await admin.api(path, {
        method,
        ...(method === "GET" ? {} : { body: "{}", headers: { "content-type": "application/json" } }),
      });
      expect([method, path, res.status, res.headers.get("allow")]).toEqual([method, path, 405, allow]);
      const options = await admin.api(path, { method: "OPTIONS" });
      expect([path, options.headers.get("allow")]).toEqual([path, allow]);
    }
  });
});

describe("GET /api/patient/observations's search, as the document states it", () => {
  const param = (name: string) => {
    const p = doc.paths["/api/patient/observations"].get.parameters?.find((q) => q.name === name);
    return compileSchema(p?.schema ?? {});
  };
  it("takes exactly the codes and dates its parameters' schemas admit (ST202, ST201)", async () => {
    const cases: [string, string, boolean][] = [
      ["code", "8867-4", true],
      ["code", "8867-4,http://loinc.org|59408-5,", true],
      ["code", "", true],
      // refused by the server before, valid by the document: a number that is no LOINC code
      ["code", "6851", false],
      // accepted (trimmed) by the server before, a pattern would not say so
      ["code", " 8867-4", false],
      ["code", "8867-4, 59408-5", false],
      ["from", "2024-01-01", true],
      ["from", "2024-01-01T10:00:00+02:00", true],
      ["to", "2024-01-01T10:00:00Z", true],
      ["from", "2024-13-01", false],
      // a date-time without its offset: the document's format date-time (RFC 3339) needs one
      ["from", "2024-01-01T10:00:00", false],
      ["to", "yesterday", false],
    ];
    for (const [name, value, valid] of cases) {
      expect([name, value, param(name)(value)]).toEqual([name, value, valid]);
      const res = await patient.api(`/api/patient/observations?${new URLSearchParams({ [name]: value })}`);
      expect([name, value, res.status]).toEqual([name, value, valid ? 200 : 400]);
    }
  });
});

describe("bodies the document refuses, the server refuses too (ST201), and the other way round (ST202)", () => {
  const post = (who: Signed, path: string, body: unknown) =>
    who.api(path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });

  it("POST /api/admin/audit/retention: an action other than purge is refused, not read as a setting", async () => {
    const body = { action: "AAA", kind: "consent", days: 1500 };
    expect(bodySchema("/api/admin/audit/retention")(body)).toBe(false);
    const res = await post(regulator, "/api/admin/audit/retention", body);
    expect([res.status, await res.json()]).toEqual([
      400,
      expect.objectContaining({ error: expect.stringMatching(/^action must be purge/) }),
    ]);
    expect(bodySchema("/api/admin/audit/retention")({ kind: "consent", days: 1500 })).toBe(true);
    // a purge with a setting's fields: they were ignored, now refused, and the document says so
    const purge = { action: "purge", kind: "consent", days: "" };
    expect(bodySchema("/api/admin/audit/retention")(purge)).toBe(false);
    const refused = await post(regulator, "/api/admin/audit/retention", purge);
    expect([refused.status, await refused.json()]).toEqual([
      400,
      expect.objectContaining({ error: "action purge takes no kind or days" }),
    ]);
    expect(bodySchema("/api/admin/audit/retention")({ action: "purge" })).toBe(true);
    expect(bodySchema("/api/admin/audit/retention")({ action: "purge", kind: "consent", days: 1500 })).toBe(
      false,
    );
  });

  it("POST /api/compliance/requests/decide: the document states what each decision needs", async () => {
    const valid = bodySchema("/api/compliance/requests/decide");
    const requestId = "DRQ-2026-0002";
    for (const [body, text] of [
      [{ requestId, decision: "answer" }, /^answer is required/],
      [{ requestId, decision: "refuse" }, /^reasons is required/],
      [{ requestId, decision: "refuse", reasons: "  " }, /^reasons is required/],
      [
        { requestId, decision: "answer", answer: { summary: "s", table: [{ label: "a", value: 3 }] } },
        /counts below 10/,
      ],
    ] as const) {
      expect([body, valid(body)]).toEqual([body, false]);
      const res = await post(regulator, "/api/compliance/requests/decide", body);
      expect([body, res.status, ((await res.json()) as { error: string }).error]).toEqual([
        body,
        400,
        expect.stringMatching(text),
      ]);
    }
    expect(valid({ requestId, decision: "approve" })).toBe(true);
    expect(valid({ requestId, decision: "refuse", reasons: "out of scope" })).toBe(true);
    expect(
      valid({
        requestId,
        decision: "answer",
        answer: {
          summary: "s",
          table: [
            { label: "a", value: 0 },
            { label: "b", value: 12 },
          ],
        },
      }),
    ).toBe(true);
  });

  it("POST /api/assets: the document states the terms' disclosure and datasets as the server reads them", async () => {
    const clinic = await signIn(server.url, "clinic");
    const valid = bodySchema("/api/assets");
    const asset = { participantId: "alphaklinik-berlin", assetId: "probe-asset", name: "Probe" };
    for (const [extra, text] of [
      [{ datasets: [] }, /^datasets must be a list of 1 to 20/],
      [{ datasets: ["../x"] }, /^datasets must be a list of 1 to 20/],
      [{ datasets: Array.from({ length: 21 }, (_, i) => `ds-${i}`) }, /^datasets must be a list of 1 to 20/],
      [{ disclosure: "public" }, /^disclosure must be one of aggregate, pseudonymised/],
    ] as const) {
      const body = { ...asset, ...extra };
      expect([extra, valid(body)]).toEqual([extra, false]);
      const res = await post(clinic, "/api/assets", body);
      expect([extra, res.status, ((await res.json()) as { error: string }).error]).toEqual([
        extra,
        400,
        expect.stringMatching(text),
      ]);
    }
    expect(valid({ ...asset, datasets: ["dataset-alphaklinik-ehr"], disclosure: "pseudonymised" })).toBe(
      true,
    );
  });

  it("POST /api/credentials/request: a type the issuer does not offer is a refusal the document states", async () => {
    const clinic = await signIn(server.url, "clinic");
    const body = { participantContextId: "alphaklinik-berlin", credentialType: "0" };
    expect(bodySchema("/api/credentials/request")(body)).toBe(true);
    const res = await post(clinic, "/api/credentials/request", body);
    const text = await res.text();
    expect([res.status, text]).toEqual([
      400,
      expect.stringContaining("The issuer offers no credential of type 0"),
    ]);
    expect(statedRefusal(doc.paths["/api/credentials/request"].post, text)).toBe(true);
  });

  it("POST /api/compliance/results: a source whose state refuses a result answers 409, as the document lists", async () => {
    const researcher = await signIn(server.url, "researcher");
    const submitted = await post(researcher, "/api/compliance/requests", {
      title: "Counts",
      question: "How many patients?",
      purpose: "officialStatistics",
      datasets: ["dataset-lmc-omop"],
    });
    expect(submitted.status).toBe(201);
    const { id } = (await submitted.json()) as { id: string };
    const body = {
      dataRequestId: id,
      title: "A result",
      summary: "What the processing found",
      processingCompletedDate: "2026-11-01",
    };
    expect(bodySchema("/api/compliance/results")(body)).toBe(true);
    const res = await post(researcher, "/api/compliance/results", body);
    expect([res.status, await res.json()]).toEqual([
      409,
      { error: "DRQ-2026-0003 has not been answered yet" },
    ]);
  });

  it("DELETE /api/admin/policies states the refusal of a policy id several participants hold", () => {
    // service.ts's text; which participants hold an id is the connector's to know
    const answer = JSON.stringify({
      error: "Policy p-1 exists for several participants (a, b): add participantId",
    });
    expect(statedRefusal(doc.paths["/api/admin/policies"].delete, answer)).toBe(true);
  });

  it("holds no tuple (prefixItems), whose response schema Schemathesis 4.32 refuses to read (GET /api/trust-center)", () => {
    expect(JSON.stringify(doc)).not.toContain("prefixItems");
  });

  it("POST /api/transfers: a participant context the connector does not know is 404, not the connector's 502", async () => {
    const res = await post(admin, "/api/transfers", {
      counterPartyAddress: "https://dsp.lmc.nl/api/dsp/lmc/2025-1",
      counterPartyId: "probe",
      assetId: "probe-asset",
      contractId: "probe-contract",
      participantId: "participant-pharmaco",
    });
    expect([res.status, await res.json()]).toEqual([404, { error: "The participant context is unknown" }]);
  });
});
