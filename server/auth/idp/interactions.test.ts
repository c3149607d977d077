import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type Provider from "oidc-provider";
import { errors } from "oidc-provider";
import { rawRequest } from "../../../tests/support/raw-request";
import { interactionRoutes } from "./interactions";

/**
 * The sign-in routes on their own, on a node:http server, with a stand-in for the provider: which
 * requests they answer, which they pass on (the server then answers 599 "passed on"), and how.
 */

const RETURN_TO = "http://127.0.0.1/idp/auth/resume-1";

interface Stand {
  /** what interactionDetails resolves to (or throws) */
  details: () => unknown;
  /** the results given to interactionResult */
  results: unknown[];
  /** calls of interactionDetails */
  lookups: number;
}

let server: Server;
let port: number;
let stand: Stand;

beforeAll(async () => {
  const provider = {
    interactionDetails: async () => {
      stand.lookups++;
      return stand.details();
    },
    interactionResult: async (_req: unknown, _res: unknown, result: unknown) => {
      stand.results.push(result);
      return RETURN_TO;
    },
  } as unknown as Provider;
  const routes = interactionRoutes({
    provider,
    mountPath: "/idp",
    restartUrl: "http://127.0.0.1/auth/signin",
  });
  server = createServer((req, res) => {
    const subPath = (req.url ?? "").split("?")[0];
    if (routes(req, res, subPath)) return;
    res.statusCode = 599;
    res.end("passed on");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  stand = {
    details: () => ({ uid: "uid-1", prompt: { name: "login", details: {} }, params: {} }),
    results: [],
    lookups: 0,
  };
});

/** one raw request (any method, an exact path, a body of any size), its answer as text */
const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  rawRequest(`http://127.0.0.1:${port}`, path, { method, headers, body });

const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** a URL-encoded form of exactly `size` bytes that signs clinic in */
function clinicFormOf(size: number): string {
  const form = "username=clinic&password=clinic&pad=";
  return form + "x".repeat(size - form.length);
}

describe("the sign-in routes", () => {
  it("URL-decodes the uid as express's req.params did, and encodes it again in the form's action", async () => {
    stand.details = () => ({ uid: "a/b c", prompt: { name: "login", details: {} }, params: {} });
    const page = await send("GET", "/a%2Fb%20c");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.text).toContain('action="/idp/interaction/a%2Fb%20c"');
    expect(page.text).toContain('action="/idp/interaction/a%2Fb%20c/abort"');

    // the same uid unencoded is another interaction: the browser's is refused
    expect((await send("GET", "/a%2Fb")).status).toBe(400);
    // a uid that does not decode: 400 whatever the method, nothing looked up
    const lookups = stand.lookups;
    expect((await send("GET", "/%E0%A4%A")).status).toBe(400);
    expect((await send("PUT", "/%ZZ/abort")).status).toBe(400);
    expect(stand.lookups).toBe(lookups);
  });

  it("answers HEAD like GET, without the body", async () => {
    const get = await send("GET", "/uid-1");
    const head = await send("HEAD", "/uid-1");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
    expect(head.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("passes on any other method or path, having answered nothing", async () => {
    for (const [method, path] of [
      ["PUT", "/uid-1"],
      ["DELETE", "/uid-1"],
      ["GET", "/uid-1/abort"],
      ["HEAD", "/uid-1/abort"],
      ["POST", "/uid-1/abort/more"],
      ["GET", "/"],
      ["GET", "/uid-1/other"],
      ["POST", "/a/b/c"],
    ]) {
      const answer = await send(method, path, method === "POST" ? "username=clinic" : undefined, FORM);
      expect({ method, path, status: answer.status, text: answer.text }).toEqual({
        method,
        path,
        status: 599,
        text: method === "HEAD" ? "" : "passed on",
      });
    }
    expect(stand.lookups).toBe(0);
    expect(stand.results).toEqual([]);
  });

  it("matches its routes as express did: any case, a trailing slash, OPTIONS answered with Allow", async () => {
    expect((await send("GET", "/uid-1/")).status).toBe(200);
    expect((await send("POST", "/uid-1/ABORT/")).status).toBe(303);
    const options = await send("OPTIONS", "/uid-1");
    expect([options.status, options.headers.allow]).toEqual([200, "GET,HEAD,POST"]);
    expect((await send("OPTIONS", "/uid-1/abort")).headers.allow).toBe("POST");
  });

  it("refuses a form over 8 kB with 413 without looking at the interaction; 8 kB is accepted", async () => {
    const tooLarge = await send("POST", "/uid-1", clinicFormOf(8 * 1024 + 1), FORM);
    expect([tooLarge.status, JSON.parse(tooLarge.text)]).toEqual([
      413,
      { error: "Request body too large (limit 8192 bytes)" },
    ]);
    // the rest of a refused body is not taken for the next request: the connection ends with the answer
    expect(tooLarge.headers.connection).toBe("close");
    expect(stand.lookups).toBe(0);
    expect(stand.results).toEqual([]);

    // announced only by its length, chunked: the same
    const chunked = await send("POST", "/uid-1", clinicFormOf(9000), {
      ...FORM,
      "transfer-encoding": "chunked",
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers.connection).toBe("close");
    expect(stand.results).toEqual([]);

    const atLimit = await send("POST", "/uid-1", clinicFormOf(8 * 1024), FORM);
    expect(atLimit.status).toBe(303);
    expect(stand.results).toEqual([{ login: { accountId: "clinic", amr: ["pwd"] } }]);
  });

  it("answers a body announced over 8 kB with 413 without waiting for it to come", async () => {
    // 10 MB announced, 1 kB sent, the request left open: the answer must not wait for the rest
    const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/uid-1",
          headers: { ...FORM, "content-length": String(10_000_000) },
        },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          req.destroy();
        },
      );
      req.on("error", reject);
      req.write("x".repeat(1024));
    });
    expect(answer).toEqual({ status: 413, connection: "close" });
    expect(stand.lookups).toBe(0);
  });

  it("signs in with a URL-encoded form and sends the browser on with 303", async () => {
    const answer = await send("POST", "/uid-1", "username=+clinic+&password=clinic", FORM);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(RETURN_TO);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(stand.results).toEqual([{ login: { accountId: "clinic", amr: ["pwd"] } }]);
  });

  it("reads no body but a URL-encoded utf-8 one: another type is refused with 415 JSON, looking at nothing", async () => {
    for (const [type, body] of [
      ["text/plain", "username=clinic&password=clinic"],
      ["application/json", '{"username":"clinic","password":"clinic"}'],
    ]) {
      const refused = await send("POST", "/uid-1", body, { "content-type": type });
      expect([refused.status, refused.headers["content-type"], JSON.parse(refused.text)]).toEqual([
        415,
        "application/json; charset=utf-8",
        { error: `The sign-in form must be sent as application/x-www-form-urlencoded, not "${type}"` },
      ]);
    }
    expect(stand.lookups).toBe(0);
    // no body at all is an empty form (the wrong-password page)
    expect((await send("POST", "/uid-1")).status).toBe(401);
    // a field sent twice is no value
    expect((await send("POST", "/uid-1", "username=clinic&password=clinic&password=x", FORM)).status).toBe(
      401,
    );
    const latin1 = { "content-type": "application/x-www-form-urlencoded; charset=latin1" };
    expect((await send("POST", "/uid-1", "username=clinic&password=clinic", latin1)).status).toBe(415);
    expect((await send("POST", "/uid-1", "&".repeat(1000), FORM)).status).toBe(413);
    expect(stand.results).toEqual([]);
  });

  it("ends the sign-in on abort", async () => {
    const answer = await send("POST", "/uid-1/abort");
    expect([answer.status, answer.headers.location]).toEqual([303, RETURN_TO]);
    expect(stand.results).toEqual([
      { error: "access_denied", error_description: "The user cancelled the sign-in." },
    ]);
  });

  it("answers an expired sign-in with its page, anything unexpected with the API's 500 JSON, logged once", async () => {
    stand.details = () => {
      throw new errors.SessionNotFound("interaction session not found");
    };
    const expired = await send("GET", "/uid-1");
    expect(expired.status).toBe(400);
    expect(expired.text).toContain("Sign-in request expired");

    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      stand.details = () => {
        throw new Error("database gone");
      };
      const failed = await send("POST", "/uid-1/abort");
      expect([failed.status, failed.headers["content-type"], JSON.parse(failed.text)]).toEqual([
        500,
        "application/json; charset=utf-8",
        { error: "Internal server error" },
      ]);
      expect(failed.text).not.toContain("database gone");
      expect(logged).toHaveBeenCalledOnce();
    } finally {
      logged.mockRestore();
    }
  });
});
