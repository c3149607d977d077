import { describe, expect, it } from "vitest";
import type { SessionUser } from "../../auth/user";
import { json } from "../errors";
import { callerKey, type CallerClass } from "./callers";
import { createRouteKeeper, type KeepSpec } from "./route";

const user = (over: Partial<SessionUser>): SessionUser => ({
  sub: "u",
  username: "u",
  name: "U",
  email: "u@example.org",
  roles: ["DATA_USER"],
  organisation: "Org A",
  ...over,
});
const a1 = user({ username: "a1" });
const a2 = user({ username: "a2" });
const b = user({ username: "b", organisation: "Org B" });
const aAdmin = user({ username: "a3", roles: ["CONNECTOR_ADMIN"] });
const aByDid = user({ username: "a4", participantDid: "did:web:a" });
const patient = user({ username: "p", roles: ["PATIENT"], patientId: "patient-1" });
const otherPatient = user({ username: "q", roles: ["PATIENT"], patientId: "patient-2" });

function setup() {
  let version = 1;
  let builds = 0;
  const keep = createRouteKeeper({
    graph: () => version,
    records: () => 0,
    audit: () => 0,
    day: () => "2026-11-29",
  });
  const ask = (spec: KeepSpec, who: SessionUser | null, url = "http://hub/api/x", status = 200) =>
    keep("/api/x", spec, { user: who, params: {}, url }, async () => {
      builds++;
      return json({ generatedAt: "then", who: who?.username ?? null, build: builds }, status);
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
  return { ask, bump: () => version++, builds: () => builds };
}

describe("a route's kept answer", () => {
  it("is never shared by two callers of different classes", async () => {
    const org: KeepSpec = { caller: "organisation", versions: ["graph"] };
    const { ask } = setup();
    expect((await ask(org, a1)).body.who).toBe("a1");
    expect((await ask(org, a2)).body.who).toBe("a1"); // same roles and organisation: shared
    for (const other of [b, aAdmin, aByDid, null])
      expect((await ask(org, other)).body.who).toBe(other?.username ?? null);

    const viewer: KeepSpec = { caller: "viewer", versions: ["graph"] };
    expect((await ask(viewer, patient)).body.who).toBe("p");
    expect((await ask(viewer, otherPatient)).body.who).toBe("q");
    const own: KeepSpec = { caller: "user", versions: ["graph"] };
    expect((await ask(own, a1)).body.who).toBe("a1");
    expect((await ask(own, a2)).body.who).toBe("a2");
  });

  it("has a key that always names the caller's class", () => {
    const classes: CallerClass[] = ["organisation", "viewer", "user"];
    for (const c of classes) {
      expect(callerKey(c, a1)).not.toBe(callerKey(c, b));
      expect(callerKey(c, a1)).not.toBe(callerKey(c, null));
    }
    expect(callerKey("user", a1)).not.toBe(callerKey("user", a2));
    expect(callerKey("viewer", patient)).not.toBe(callerKey("viewer", otherPatient));
    // roles in any order are one class
    expect(callerKey("organisation", user({ roles: ["DATA_USER", "PATIENT"] }))).toBe(
      callerKey("organisation", user({ roles: ["PATIENT", "DATA_USER"] })),
    );
  });

  it("is built again when a version it reads moves, and per query", async () => {
    const spec: KeepSpec = { caller: "everyone", versions: ["graph"] };
    const { ask, bump, builds } = setup();
    await ask(spec, a1);
    await ask(spec, b);
    expect(builds()).toBe(1);
    bump();
    expect((await ask(spec, b)).body.who).toBe("b");
    await ask(spec, b, "http://hub/api/x?state=OPEN");
    expect(builds()).toBe(3);
  });

  it("keeps only a 200", async () => {
    const spec: KeepSpec = { caller: "everyone", versions: ["graph"] };
    const { ask, builds } = setup();
    expect((await ask(spec, a1, undefined, 404)).status).toBe(404);
    expect((await ask(spec, a1, undefined, 404)).status).toBe(404);
    expect(builds()).toBe(2);
  });

  it("answers a kept answer as it was built, its time the build's", async () => {
    const spec: KeepSpec = { caller: "everyone", versions: ["graph"] };
    const { ask, builds } = setup();
    const first = await ask(spec, a1);
    await new Promise((r) => setTimeout(r, 5));
    const second = await ask(spec, a1);
    expect(builds()).toBe(1);
    expect(second.body).toEqual(first.body);
    expect(second.body.generatedAt).toBe("then");
  });
});
