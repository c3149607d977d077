import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { providerContextWhileInFlight } from "./request-context";

/** a response as the middleware sees it: Node's ServerResponse emits "finish" then "close", or only "close" */
const response = () => new EventEmitter() as unknown as ServerResponse & EventEmitter;
const request = {} as IncomingMessage;

describe("the provider's async context, only while its requests are in flight", () => {
  it("is disabled when the last provider request in flight has finished, not before", () => {
    let disabled = 0;
    const middleware = providerContextWhileInFlight({ disable: () => disabled++ });
    const [a, b] = [response(), response()];
    let passed = 0;
    middleware(request, a, () => passed++);
    middleware(request, b, () => passed++);
    expect(passed).toBe(2);
    a.emit("finish");
    a.emit("close");
    expect(disabled).toBe(0); // b is still in flight and may read its context
    b.emit("close"); // its client went away: no finish
    expect(disabled).toBe(1);
  });

  it("counts each request once, whether it finishes, closes or both", () => {
    let disabled = 0;
    const middleware = providerContextWhileInFlight({ disable: () => disabled++ });
    const a = response();
    middleware(request, a, () => {});
    a.emit("finish");
    a.emit("close");
    a.emit("close");
    expect(disabled).toBe(1);
    // the next request enables it again (oidc-provider's `run` does); its end disables it once more
    const b = response();
    middleware(request, b, () => {});
    b.emit("finish");
    expect(disabled).toBe(2);
  });
});
