import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  beforeDeadline,
  ProviderUnavailableError,
  refreshSession,
  requestTokens,
  revokeRefreshToken,
} from "./provider-calls";

/** A token endpoint on 127.0.0.1 whose answer each test chooses (real HTTP). */
let answer: (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server;
let url: string;
const client = { clientId: "hub", clientSecret: "s3cret:x", redirectURI: "http://127.0.0.1/auth/callback" };
const grant = { code: "code-1", codeVerifier: "verifier-1" };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => answer(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

describe("requestTokens", () => {
  it("sends the code grant with PKCE and client_secret_basic, and returns the tokens", async () => {
    let seen: { auth?: string; body?: URLSearchParams } = {};
    answer = (req, res, body) => {
      seen = { auth: req.headers.authorization, body: new URLSearchParams(body) };
      json(res, 200, { access_token: "at", token_type: "Bearer", id_token: "id.token.sig" });
    };
    const tokens = await requestTokens(url, client, grant, AbortSignal.timeout(2000));
    expect(tokens.idToken()).toBe("id.token.sig");
    expect(seen.auth).toBe(`Basic ${Buffer.from("hub:s3cret:x").toString("base64")}`);
    expect(Object.fromEntries(seen.body!)).toEqual({
      grant_type: "authorization_code",
      code: "code-1",
      redirect_uri: client.redirectURI,
      code_verifier: "verifier-1",
    });
  });

  it("a provider that never answers: unavailable when the deadline aborts the request", async () => {
    answer = () => {}; // accepts, never answers
    const error = await requestTokens(url, client, grant, AbortSignal.timeout(300)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toBe("token request: no answer within the time-out");
  });

  it("a body cut after the headers: unavailable", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"access_token":');
      setTimeout(() => res.socket?.destroy(), 10);
    };
    await expect(requestTokens(url, client, grant, AbortSignal.timeout(2000))).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
  });

  it("5xx, and 200 with no JSON object: unavailable", async () => {
    answer = (_req, res) => json(res, 503, { error: "down" });
    await expect(requestTokens(url, client, grant, AbortSignal.timeout(2000))).rejects.toThrow(
      new ProviderUnavailableError("token endpoint answered 503"),
    );
    answer = (_req, res) => json(res, 200, ["not", "an", "object"]);
    await expect(requestTokens(url, client, grant, AbortSignal.timeout(2000))).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
  });

  it("400 invalid_grant is a refusal, not an unavailable provider", async () => {
    answer = (_req, res) => json(res, 400, { error: "invalid_grant", error_description: "code used" });
    const error = await requestTokens(url, client, grant, AbortSignal.timeout(2000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toBe("token request refused (400): invalid_grant – code used");
  });
});

describe("refreshSession", () => {
  const check = (ms = 2000) => refreshSession(url, client, "rt-1", AbortSignal.timeout(ms));

  it("sends the refresh grant with client_secret_basic; 200: active, with the new refresh token", async () => {
    let seen: { auth?: string; body?: URLSearchParams } = {};
    answer = (req, res, body) => {
      seen = { auth: req.headers.authorization, body: new URLSearchParams(body) };
      json(res, 200, { access_token: "at", token_type: "Bearer", refresh_token: "rt-2" });
    };
    await expect(check()).resolves.toEqual({ state: "active", refreshToken: "rt-2" });
    expect(seen.auth).toBe(`Basic ${Buffer.from("hub:s3cret:x").toString("base64")}`);
    expect(Object.fromEntries(seen.body!)).toEqual({ grant_type: "refresh_token", refresh_token: "rt-1" });
    answer = (_req, res) => json(res, 200, { access_token: "at", token_type: "Bearer" });
    await expect(check()).resolves.toEqual({ state: "active" });
  });

  it("400 invalid_grant (Keycloak: session not active): ended", async () => {
    answer = (_req, res) =>
      json(res, 400, { error: "invalid_grant", error_description: "Session not active" });
    await expect(check()).resolves.toEqual({
      state: "ended",
      reason: "invalid_grant – Session not active",
    });
  });

  it("is typed by what it answers: active or ended, never unreachable (that is a throw); checked by tsc", () => {
    expectTypeOf<Awaited<ReturnType<typeof refreshSession>>["state"]>().toEqualTypeOf<"active" | "ended">();
  });

  it("another refusal, 5xx, garbage, a cut body or no answer say nothing of the session: unavailable", async () => {
    const faults: ((req: IncomingMessage, res: ServerResponse) => void)[] = [
      (_req, res) => json(res, 401, { error: "unauthorized_client" }),
      (_req, res) => json(res, 502, { error: "bad gateway" }),
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{this is not json]");
      },
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
        res.write('{"access_token":');
        setTimeout(() => res.socket?.destroy(), 10);
      },
      () => {},
    ];
    for (const fault of faults) {
      answer = fault;
      const started = Date.now();
      await expect(check(300)).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });
});

describe("revokeRefreshToken", () => {
  it("posts the token with its hint and client_secret_basic; 200 with an empty body is done", async () => {
    let seen: { auth?: string; body?: URLSearchParams } = {};
    answer = (req, res, body) => {
      seen = { auth: req.headers.authorization, body: new URLSearchParams(body) };
      res.writeHead(200).end();
    };
    await revokeRefreshToken(url, client, "rt-1", AbortSignal.timeout(2000));
    expect(seen.auth).toBe(`Basic ${Buffer.from("hub:s3cret:x").toString("base64")}`);
    expect(Object.fromEntries(seen.body!)).toEqual({ token: "rt-1", token_type_hint: "refresh_token" });
  });

  it("a refusal, 5xx or no answer within the deadline: unavailable, in time", async () => {
    answer = (_req, res) => json(res, 401, { error: "unauthorized_client" });
    await expect(revokeRefreshToken(url, client, "rt-1", AbortSignal.timeout(2000))).rejects.toThrow(
      new ProviderUnavailableError("token revocation answered 401"),
    );
    answer = (_req, res) => json(res, 503, { error: "down" });
    await expect(revokeRefreshToken(url, client, "rt-1", AbortSignal.timeout(2000))).rejects.toThrow(
      new ProviderUnavailableError("token revocation answered 503"),
    );
    answer = () => {}; // accepts, never answers
    await expect(revokeRefreshToken(url, client, "rt-1", AbortSignal.timeout(300))).rejects.toThrow(
      new ProviderUnavailableError("token revocation: no answer within the time-out"),
    );
  });
});

describe("beforeDeadline", () => {
  it("gives the work's result, or unavailable when the deadline comes first", async () => {
    await expect(beforeDeadline(Promise.resolve(7), AbortSignal.timeout(1000), "x")).resolves.toBe(7);
    const never = new Promise<number>(() => {});
    await expect(beforeDeadline(never, AbortSignal.timeout(50), "discovery")).rejects.toThrow(
      new ProviderUnavailableError("discovery: no answer within the time-out"),
    );
    await expect(
      beforeDeadline(Promise.reject(new Error("boom")), AbortSignal.timeout(1000), "x"),
    ).rejects.toThrow("boom");
  });
});
