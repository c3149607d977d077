import { describe, expect, it } from "vitest";
import { createClientCredentialsSource } from "./oauth-token";
import type { UpstreamError } from "./upstream-http";

/** The token call's request, and its failures as the hub's 502 `detail` words them. */
const source = (fetch: typeof globalThis.fetch, timeoutMs = 1000) =>
  createClientCredentialsSource({
    tokenUrl: "http://auth.test/realms/x/token/?a=1",
    clientId: "hub",
    clientSecret: "s",
    scope: "one two",
    timeoutMs,
    fetch,
  });

const failureOf = async (answer: typeof fetch, timeoutMs?: number) => {
  const e = (await source(answer, timeoutMs)
    .token()
    .catch((e: unknown) => e)) as UpstreamError;
  return { failure: e.failure, status: e.status, message: e.message };
};

describe("the client-credentials token call", () => {
  it("posts the form to the token URL as given and takes the token", async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const tokens = source(async (url, init) => {
      seen.push({ url: String(url), init: init! });
      return Response.json({ access_token: "tok", expires_in: 300 });
    });
    expect(await tokens.token()).toBe("tok");
    expect(await tokens.token()).toBe("tok");
    expect(seen).toHaveLength(1);
    const [{ url, init }] = seen;
    expect(url).toBe("http://auth.test/realms/x/token/?a=1");
    expect(init.method).toBe("POST");
    expect(init.redirect).toBe("error");
    expect(Object.fromEntries(new Headers(init.headers))).toEqual({
      accept: "application/json",
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(String(init.body)).toBe(
      "grant_type=client_credentials&client_id=hub&client_secret=s&scope=one+two",
    );
  });

  it("says the status alone, a malformed or empty body, a missing token, a time-out and an unreachable host", async () => {
    const status = await failureOf(async () => Response.json({ error: "invalid_client" }, { status: 401 }));
    expect(status).toEqual({
      failure: "token",
      status: 401,
      message: "no access token: token endpoint answered HTTP 401",
    });
    for (const body of ["{", "", "  "])
      expect(await failureOf(async () => new Response(body))).toEqual({
        failure: "token",
        status: undefined,
        message: "no access token: token endpoint answered with malformed JSON",
      });
    for (const json of [{}, null, { access_token: "" }, { access_token: "t", expires_in: -1 }])
      expect(await failureOf(async () => Response.json(json))).toEqual({
        failure: "token",
        status: undefined,
        message: "no access token: token endpoint answered without access_token",
      });
    const slow = (_: unknown, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason)),
      );
    expect(await failureOf(slow, 50)).toEqual({
      failure: "token",
      status: undefined,
      message: "no access token: token endpoint did not answer within the time-out",
    });
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    expect(await failureOf(() => Promise.reject(refused))).toEqual({
      failure: "token",
      status: undefined,
      message: "no access token: token endpoint is unreachable (ECONNREFUSED)",
    });
  });
});
