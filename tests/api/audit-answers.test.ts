import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * The audit routes and the OpenAPI document answer from kept, encoded answers (server/http/kept,
 * server/openapi/handlers.ts), on the real server: a write through the API shows in the very next read,
 * and the answer is the same text gzip-encoded or not.
 */
let server: TestServer;
let admin: Signed;
let regulator: Signed;
beforeAll(async () => {
  server = await startTestServer();
  admin = await signIn(server.url, "admin");
  regulator = await signIn(server.url, "regulator");
});
afterAll(async () => server?.close());

type Entry = { action: string; target: string; seq: number; hash: string };
const json = async <T>(res: Response) => {
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};

describe("the audit routes' kept answers", () => {
  it("show a write through the API in the next read (entries and retention)", async () => {
    // read first, so that the answers are kept
    const before = await json<Entry[]>(await admin.api("/api/admin/audit?limit=1"));
    await json<Entry[]>(await regulator.api("/api/admin/audit?limit=1"));
    await json<Record<string, unknown>>(await admin.api("/api/admin/audit/retention?kind=consent"));
    await json<Record<string, unknown>>(await admin.api("/api/admin/audit/retention"));
    for (const days of [2000, 2100]) {
      const set = await regulator.api("/api/admin/audit/retention", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: "consent", days }),
      });
      expect(set.status).toBe(200);
      const [newest] = await json<Entry[]>(await admin.api("/api/admin/audit?limit=1"));
      expect(newest).toMatchObject({
        action: "audit.retention.set",
        target: "consent",
        hash: expect.any(String),
      });
      expect(newest!.seq).toBeGreaterThan(before[0]!.seq);
      const [asRegulator] = await json<Entry[]>(await regulator.api("/api/admin/audit?limit=1"));
      expect(asRegulator).toMatchObject({ seq: newest!.seq, hash: "" });
      expect(await json(await admin.api("/api/admin/audit/retention?kind=consent"))).toMatchObject({ days });
      const all = await json<{ kinds: { kind: string; days: number }[] }>(
        await admin.api("/api/admin/audit/retention"),
      );
      expect(all.kinds.find((k) => k.kind === "consent")).toMatchObject({ days, source: "set" });
    }
  });

  it("answer the same text gzip-encoded or not", async () => {
    for (const path of ["/api/admin/audit?limit=50", "/api/admin/audit/retention", "/api/openapi.json"]) {
      const plain = await admin.api(path, { headers: { "accept-encoding": "identity" } });
      const zipped = await admin.api(path, { headers: { "accept-encoding": "gzip" } });
      expect(plain.headers.get("content-encoding"), path).toBeNull();
      expect(zipped.headers.get("content-encoding"), path).toBe("gzip");
      expect(await zipped.text(), path).toBe(await plain.text());
    }
  });
});
