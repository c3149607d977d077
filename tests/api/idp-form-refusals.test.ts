import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-request";
import { startTestServer, type TestServer } from "../support/server";

/**
 * The embedded sign-in pages (server/auth/idp/interactions.ts) refuse a form they cannot read, or an address
 * that does not decode, in the error model's JSON `{ error }`, as they refuse a form too large (413), not a
 * bare reason phrase.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const post = (target: string, body: string, headers: Record<string, string>) =>
  rawRequest(server.url, target, { method: "POST", body, headers });

const answered = (answer: { status: number; headers: Record<string, unknown>; text: string }) => ({
  status: answer.status,
  type: answer.headers["content-type"],
  body: JSON.parse(answer.text) as unknown,
});

describe("the sign-in form's refusals", () => {
  it("a form in another charset: 415 JSON naming it", async () => {
    const answer = await post("/idp/interaction/uid-1", "username=clinic&password=clinic", {
      "content-type": "application/x-www-form-urlencoded; charset=latin1",
    });
    expect(answered(answer)).toEqual({
      status: 415,
      type: "application/json; charset=utf-8",
      body: { error: 'The sign-in form must be sent as UTF-8, not "LATIN1"' },
    });
  });

  it("a body of another type (JSON): 415 JSON naming the type expected and the one sent", async () => {
    const answer = await post("/idp/interaction/uid-1", '{"username":"clinic","password":"clinic"}', {
      "content-type": "application/json",
    });
    expect(answered(answer)).toEqual({
      status: 415,
      type: "application/json; charset=utf-8",
      body: {
        error: 'The sign-in form must be sent as application/x-www-form-urlencoded, not "application/json"',
      },
    });
  });

  it("a compressed form: 415 JSON naming its encoding", async () => {
    const answer = await post("/idp/interaction/uid-1", "username=clinic&password=clinic", {
      "content-type": "application/x-www-form-urlencoded",
      "content-encoding": "gzip",
    });
    expect(answered(answer)).toEqual({
      status: 415,
      type: "application/json; charset=utf-8",
      body: { error: 'The sign-in form must be sent uncompressed, not with Content-Encoding "gzip"' },
    });
  });

  it("a malformed address (a request id that does not URL-decode): 400 JSON, posted or not", async () => {
    for (const target of ["/idp/interaction/%E0%A4%A", "/idp/interaction/%ZZ/abort"]) {
      const answer = await post(target, "username=clinic&password=clinic", {
        "content-type": "application/x-www-form-urlencoded",
      });
      expect(answered(answer), target).toEqual({
        status: 400,
        type: "application/json; charset=utf-8",
        body: { error: "The sign-in address is malformed: its request id is not valid URL encoding" },
      });
    }
  });
});
