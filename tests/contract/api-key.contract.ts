import { expect, it } from "vitest";
import type { UpstreamClientOptions, UpstreamName } from "../../server/dataspace/upstream-http";

/**
 * How EDC IdentityHub / IssuerService 0.15.1 authenticate the identity and issuer admin APIs, which
 * the hub's clients count on (decision 0114): an `x-api-key` only (ServicePrincipalAuthenticationFilter),
 * `base64(participant context id).secret` (ParticipantServicePrincipalResolver). No key answers 401
 * without an error list (0.15.1: Jetty's HTML page; the embedded one: no body), a wrong key 401 with
 * EDC's error list, type `AuthenticationFailed`; a bearer token is no key.
 */
export interface ApiKeyTarget {
  /** the hub's client options as configured (with the key) */
  options: UpstreamClientOptions;
  /** one read by the hub's client, built with `options` over the configured ones */
  call(options: Partial<UpstreamClientOptions>): Promise<unknown>;
  /** one request to the same API with exactly these headers */
  request(headers: Record<string, string>): Promise<Response>;
}

const refused = (name: UpstreamName, detail = "") => ({
  upstream: name,
  failure: "status",
  status: 401,
  message: expect.stringMatching(new RegExp(`^${name} answered HTTP 401${detail}`)),
});
const authenticationFailed = (message: string) => [
  { message, type: "AuthenticationFailed", path: null, invalidValue: null },
];

export function apiKeyContract(name: UpstreamName, setup: () => ApiKeyTarget): void {
  it(`answers the hub's ${name} client, which sends the configured x-api-key`, async () => {
    const t = setup();
    expect(t.options.apiKey).toMatch(/^[A-Za-z0-9+/]+=*\.\S+$/);
    await expect(t.call({})).resolves.toBeDefined();
  });

  it("refuses a call without a key, and a bearer token in its place: 401 without an error list", async () => {
    const t = setup();
    const none: Record<string, string>[] = [{}, { authorization: "Bearer eyJhbGciOiJub25lIn0.e30." }];
    for (const headers of none) {
      const res = await t.request(headers);
      expect(res.status).toBe(401);
      expect((await res.text()).startsWith("[")).toBe(false);
    }
    await expect(t.call({ apiKey: undefined })).rejects.toMatchObject(refused(name));
    const tokens = { token: async () => "eyJhbGciOiJub25lIn0.e30." };
    await expect(t.call({ apiKey: undefined, tokens })).rejects.toMatchObject(refused(name));
  });

  it("refuses a wrong key: 401 Invalid API token; a key of a context it does not have: 401 naming it", async () => {
    const t = setup();
    const wrong = `${t.options.apiKey!.split(".")[0]}.d3Jvbmc=`;
    const res = await t.request({ "x-api-key": wrong });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(authenticationFailed("Invalid API token"));
    await expect(t.call({ apiKey: wrong })).rejects.toMatchObject(refused(name, ": Invalid API token"));
    const nobody = await t.request({ "x-api-key": `${Buffer.from("nobody").toString("base64")}.eA==` });
    expect(nobody.status).toBe(401);
    expect(await nobody.json()).toEqual(
      authenticationFailed("Invalid Authentication 'nobody': An entity with ID 'nobody' does not exist."),
    );
  });
}
