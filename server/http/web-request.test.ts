import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { bodilessWebRequest } from "./node-adapter";

/** the web Request of one real GET to a server on 127.0.0.1, built by `build` from the Node request */
async function requestOf(build: (req: http.IncomingMessage) => Request): Promise<Request> {
  let made: Request | undefined;
  const server = http.createServer((req, res) => {
    made = build(req);
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/catalogue?q=x`, {
      headers: { "x-test": "1", accept: "text/html" },
    });
  } finally {
    await new Promise((r) => server.close(r));
  }
  return made!;
}

describe("a page's web Request (bodilessWebRequest)", () => {
  it("has the signal it was given as its own signal, so an abort reaches loaders at once", async () => {
    const controller = new AbortController();
    const request = await requestOf((req) =>
      bodilessWebRequest(req, `http://hub.test${req.url}`, controller.signal),
    );
    expect(request).toBeInstanceOf(Request);
    expect(request.signal).toBe(controller.signal);
    expect([
      request.method,
      request.url,
      request.headers.get("x-test"),
      request.headers.get("accept"),
    ]).toEqual(["GET", "http://hub.test/catalogue?q=x", "1", "text/html"]);
    const seen: unknown[] = [];
    request.signal.addEventListener("abort", () => seen.push(request.signal.reason));
    const copy = request.clone();
    expect(copy.signal.aborted).toBe(false);
    controller.abort("answered");
    expect([request.signal.aborted, seen]).toEqual([true, ["answered"]]);
    // a clone (which a loader may make) follows it too
    expect([copy.signal.aborted, copy.signal.reason]).toEqual([true, "answered"]);
  });

  it("without a signal has a signal of its own that is not aborted", async () => {
    const request = await requestOf((req) => bodilessWebRequest(req, `http://hub.test${req.url}`));
    expect(request.signal).toBeInstanceOf(AbortSignal);
    expect(request.signal.aborted).toBe(false);
    expect(request.url).toBe("http://hub.test/catalogue?q=x");
  });
});
