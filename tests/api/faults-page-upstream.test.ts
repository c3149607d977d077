import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLICY_LIST_FAILED } from "../../server/policies/policy-document";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * A page whose loader meets an upstream that fails (the connector refuses connections: its port is
 * closed) answers the error page with the upstream failure's 502 and the spec's message, as the API
 * does, not Remix's 500 "something went wrong" (server/http/unavailable-pages.ts).
 */

let hub: TestServer;
let admin: Signed;

beforeAll(async () => {
  const closed = await freePort(); // nothing listens there
  hub = await startTestServer({
    CONNECTOR_MANAGEMENT_URL: `http://127.0.0.1:${closed}/management`,
    CONNECTOR_API_VERSION: "v3",
    CONNECTOR_API_KEY: "unused",
    UPSTREAM_TIMEOUT_MS: "1000",
  });
  admin = await signIn(hub.url, "admin");
}, 60_000);
afterAll(async () => {
  await hub?.close();
});

describe("a page whose loader meets an unreachable connector", () => {
  it("answers 502 with the spec's message on the error page, within the time-out", async () => {
    const t0 = performance.now();
    const res = await admin.api("/policies");
    const html = await res.text();
    expect(res.status).toBe(502);
    expect(html).toContain(POLICY_LIST_FAILED);
    expect(html).toContain('class="card error-page"');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it("answers its data request (a client navigation) 502 too", async () => {
    const res = await admin.api("/policies.data?_routes=routes%2Fpolicies");
    expect(res.status).toBe(502);
  });
});
