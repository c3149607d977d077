import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * The page error boundary (app/root.tsx) heads a refused form post (400, as `readForm` refuses a field of one
 * value sent twice) with what happened, not the bare "Error" of an unforeseen status.
 */

let server: TestServer;
let clinic: Signed;

beforeAll(async () => {
  server = await startTestServer();
  clinic = await signIn(server.url, "clinic");
});
afterAll(async () => server?.close());

describe("the page error boundary", () => {
  it("heads a form post refused 400 'Request not accepted', with the refusal, and keeps nothing", async () => {
    const res = await clinic.api("/catalogue/new", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: "id=ds-twice&title=One&title=Two",
    });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain("<h1>Request not accepted</h1>");
    expect(html).toContain("<title>Request not accepted · Health Dataspace Hub</title>");
    expect(html).toContain("The field “title” was sent more than once: it takes one value.");
    const catalogue = (await (await clinic.api("/api/catalog")).json()) as { id: string }[];
    expect(catalogue.map((d) => d.id)).not.toContain("ds-twice");
  });
});
