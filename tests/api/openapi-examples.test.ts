import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * The operations whose success no other black-box test reaches over HTTP (the dataspace tests call
 * those handlers in-process), walked once on a seeded store so that their answers are recorded as the
 * document's examples (scripts/openapi-examples.mjs --record runs this file among RECORDING_TESTS).
 * The answer check of the test server (tests/support/answer-check.ts) holds each answer to the document.
 */
let server: TestServer;
let admin: Signed;
beforeAll(async () => {
  server = await startTestServer();
  admin = await signIn(server.url, "admin");
}, 60_000);
afterAll(async () => server?.close());

const post = (s: Signed, path: string, body: unknown) =>
  s.api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("operations walked for the document's examples", () => {
  it("onboards a participant and reads its credentials once it is provisioned", async () => {
    const created = await post(admin, "/api/participants", {
      displayName: "Universitätsklinikum Nord",
      role: "DATA_HOLDER",
    });
    expect(created.status).toBe(201);
    const { participantId } = (await created.json()) as { participantId: string };
    expect(participantId).toEqual(expect.any(String));
    let credentials: unknown[] = [];
    for (let i = 0; i < 100 && !credentials.length; i++) {
      const res = await admin.api(`/api/participants/${encodeURIComponent(participantId)}/credentials`);
      if (res.status === 200) credentials = (await res.json()) as unknown[];
      else await res.arrayBuffer();
      if (!credentials.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(credentials.length).toBeGreaterThan(0);
    expect(server.mismatches).toEqual([]);
  });
});
