import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { NO_CONTEXT, NOT_YOUR_CONTEXT } from "../../server/dataspace/acting";
import { ROUTES, type HttpMethod } from "../../server/http/route-table";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Walks the route table for every persona and for anonymous callers: a route that needs a
 * session answers 401 without one; a role the route does not admit gets 403; an admitted caller
 * never gets 401 or 403 from the guard (the handler may still answer 400/404 for the empty input).
 * Then, for every method the table marks as acting in a participant context (`actsIn`), the "own vs
 * other organisation" cases: each admitted persona of an organisation is refused (403) another
 * organisation's context and admitted to its own; a CONNECTOR_ADMIN is admitted to any.
 */
let server: TestServer;
const sessions = new Map<string, Signed>();

beforeAll(async () => {
  server = await startTestServer();
  for (const p of PERSONAS) sessions.set(p.username, await signIn(server.url, p.username));
});
afterAll(async () => server?.close());

const concrete = (path: string) =>
  path
    .replace(":rest*", "session")
    .replace(/:([A-Za-z]+)/g, (_, name: string) => (name === "participant" ? "lmc" : `probe-${name}`));

const cases = ROUTES.flatMap((r) =>
  (Object.entries(r.methods) as [HttpMethod, NonNullable<(typeof r.methods)[HttpMethod]>][]).map(
    ([method, spec]) => ({
      method,
      path: r.path,
      access: spec.access,
    }),
  ),
);

describe("authorisation matrix over the route table", () => {
  it("covers every route and method", () => {
    expect(cases.length).toBeGreaterThan(90);
  });

  it.each(cases)("$method $path", async ({ method, path, access }) => {
    const url = `${server.url}${concrete(path)}`;
    const init = (cookie?: string): RequestInit => ({
      method,
      redirect: "manual",
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }),
      },
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    });

    const anon = await fetch(url, init());
    expect(anon.headers.get("content-type")).toMatch(/application\/json/);
    if (access.kind === "session" || access.kind === "session-or-crawler") {
      expect(anon.status, "anonymous").toBe(401);
      expect((await anon.json()).error).toEqual(expect.any(String));
    } else if (access.kind === "public") {
      expect([401, 403]).not.toContain(anon.status);
    }

    if (access.kind !== "session") return;
    for (const persona of PERSONAS) {
      const res = await fetch(url, init(sessions.get(persona.username)!.cookie));
      const admitted = access.roles === "any" || access.roles.some((r) => persona.roles.includes(r));
      const body = (await res.json()) as { error?: string };
      if (admitted) {
        expect(
          res.status === 401 || (res.status === 403 && /role/i.test(body.error ?? "")),
          `${persona.username} admitted`,
        ).toBe(false);
      } else {
        expect(res.status, `${persona.username} refused`).toBe(403);
        expect(body.error).toEqual(expect.any(String));
      }
    }
  });
});

/** the methods that name a participant context (route table: actsIn), with the personas they admit */
const actingCases = ROUTES.flatMap((r) =>
  (Object.entries(r.methods) as [HttpMethod, NonNullable<(typeof r.methods)[HttpMethod]>][])
    .filter(([, spec]) => spec.actsIn && spec.access.kind === "session")
    .map(([method, spec]) => ({ method, path: r.path, actsIn: spec.actsIn!, access: spec.access })),
);

/** every field a write of these routes requires besides participantId, so that the context check is reached */
const PROBE_BODY = {
  counterPartyAddress: "http://127.0.0.1:9/api/dsp",
  counterPartyId: "probe",
  assetId: "probe-asset",
  offerId: "probe-offer",
  contractId: "probe-contract",
  name: "Probe",
};

/** what the policy routes' declarations require besides participantId (checked before the handler) */
const PROBE_POLICY = {
  policyId: "probe-policy",
  policy: { "@id": "probe-policy", policy: { "@type": "Set", permission: [{ action: "use" }] } },
};

describe("own vs other organisation over the route table (participant contexts)", () => {
  it("marks the dataspace routes that act in a participant context", () => {
    expect(actingCases.length).toBeGreaterThanOrEqual(8);
  });

  it.each(actingCases)("$method $path ($actsIn)", async ({ method, path, actsIn, access }) => {
    const call = async (username: string, participantId: string) => {
      const url = new URL(`${server.url}${concrete(path)}`);
      if (actsIn === "query") url.searchParams.set("participantId", participantId);
      if (path === "/api/admin/policies") url.searchParams.set("policyId", PROBE_POLICY.policyId);
      const res = await fetch(url, {
        method,
        redirect: "manual",
        headers: {
          cookie: sessions.get(username)!.cookie,
          ...(actsIn === "body" ? { "content-type": "application/json" } : {}),
        },
        body:
          actsIn === "body"
            ? JSON.stringify({
                ...PROBE_BODY,
                ...(path === "/api/admin/policies" ? PROBE_POLICY : {}),
                participantId,
              })
            : undefined,
      });
      const text = await res.text(); // a 204 (a policy deleted) has no body
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as { error?: string } };
    };
    const admitted = PERSONAS.filter(
      (p) =>
        access.kind === "session" &&
        (access.roles === "any" || access.roles.some((r) => p.roles.includes(r))),
    );
    const members = admitted.filter((p) => p.organisationSlug && !p.roles.includes("CONNECTOR_ADMIN"));
    expect(members.length, "personas of an organisation admitted").toBeGreaterThan(0);
    for (const p of members) {
      const own = p.organisationSlug!;
      const other = own === "pharmaco" ? "lmc" : "pharmaco";
      const refused = await call(p.username, other);
      expect(refused.status, `${p.username} in ${other}`).toBe(403);
      expect(refused.body.error).toBe(NOT_YOUR_CONTEXT);
      // admitted to its own context (a write may still be refused for another reason, such as a missing permit)
      const ownAnswer = await call(p.username, own);
      expect(ownAnswer.body.error ?? "", `${p.username} in ${own}`).not.toBe(NOT_YOUR_CONTEXT);
    }
    // admitted by role but of no participant organisation (the trust center): no context at all
    for (const p of admitted.filter((x) => !x.organisationSlug && !x.roles.includes("CONNECTOR_ADMIN"))) {
      const refused = await call(p.username, "lmc");
      expect(refused.status, `${p.username} in lmc`).toBe(403);
      expect(refused.body.error).toBe(NO_CONTEXT);
    }
    for (const p of admitted.filter((x) => x.roles.includes("CONNECTOR_ADMIN"))) {
      const answer = await call(p.username, "lmc");
      expect(answer.body.error ?? "", `${p.username} in lmc`).not.toBe(NOT_YOUR_CONTEXT);
      expect(answer.status, `${p.username} in lmc`).not.toBe(401);
    }
  });
});
