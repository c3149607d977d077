import { describe, expect, it } from "vitest";
import { heldDocumentBody, holdDocumentBody } from "./document-body";

describe("the document's bytes held on its Response", () => {
  it("are the rendered bytes, the same the Response's stream gives", async () => {
    const body = new TextEncoder().encode("<!DOCTYPE html><html><body>é</body></html>");
    const response = holdDocumentBody(new Response(body, { status: 200 }), body);
    expect(heldDocumentBody(response)).toBe(body);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(body);
  });

  it("are absent on any other Response (a redirect, HEAD, an error page)", () => {
    expect(heldDocumentBody(new Response("x"))).toBeNull();
    expect(heldDocumentBody(new Response(null, { status: 302, headers: { location: "/" } }))).toBeNull();
  });
});
