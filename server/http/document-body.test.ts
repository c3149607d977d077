import { describe, expect, it } from "vitest";
import { documentResponse, heldDocumentBody } from "./document-body";
import { EncodedBody } from "./node-adapter";

describe("the document's bytes held on its Response", () => {
  it("are the rendered bytes, the same the Response's stream gives", async () => {
    const body = new EncodedBody(Buffer.from("<!DOCTYPE html><html><body>é</body></html>"));
    const response = documentResponse(body, 200, new Headers());
    expect(heldDocumentBody(response)).toBe(body);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(body.raw);
  });

  it("are absent on any other Response (a redirect, HEAD, an error page)", () => {
    expect(heldDocumentBody(new Response("x"))).toBeNull();
    expect(heldDocumentBody(new Response(null, { status: 302, headers: { location: "/" } }))).toBeNull();
  });

  it("are the body of a document Response, which keeps its web Headers (every Set-Cookie line) as given", async () => {
    const html = "<!DOCTYPE html><html><body>é</body></html>";
    const body = new EncodedBody(Buffer.from(html));
    const headers = new Headers({ "Content-Type": "text/html; charset=utf-8" });
    headers.append("Set-Cookie", "a=1; Path=/");
    headers.append("Set-Cookie", "b=2; Path=/");
    const response = documentResponse(body, 200, headers);
    expect(response).toBeInstanceOf(Response);
    expect(heldDocumentBody(response)).toBe(body);
    expect([response.status, response.headers.get("content-type")]).toEqual([
      200,
      "text/html; charset=utf-8",
    ]);
    expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    const copy = response.clone();
    expect(copy.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    // read as the express path reads it: through its web stream
    expect(await new Response(response.body).text()).toBe(html);
    expect(await copy.text()).toBe(html);
    expect(Buffer.from(await documentResponse(body, 404, new Headers()).arrayBuffer())).toEqual(body.raw);
  });
});
