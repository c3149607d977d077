import Database from "better-sqlite3";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { signIn } from "../support/signin";
import { DATA_PLANE_HOSTS_INVALID } from "../../server/operator/directory";
import { type Json, body, governanceHarness } from "./governance.support";

/**
 * Issue 4, black box: credentials, ODRL policies and scope, audit and retention, the operator
 * console, the trust center, the identity provider's address, the discovery check and the
 * demonstration DSP catalogue, against the real server with its embedded dataspace.
 *
 * This file: the operator console and a tampered audit file.
 */

const h = governanceHarness();
const { api, send } = h;

describe("operator console", () => {
  it("lists the tenants of the tenant manager", async () => {
    const tenants = (await (await api("admin", "/api/admin/tenants")).json()) as Json[];
    expect(tenants.length).toBeGreaterThanOrEqual(5);
    const lmc = tenants.find((t) => t.displayName === "Limburg Medical Centre")!;
    expect(lmc.participants).toEqual([expect.objectContaining({ did: "did:web:lmc.nl:participant" })]);
  });

  it("answers the tenant list from what it kept until a rename through this server, then the new name", async () => {
    const text = async () => (await api("admin", "/api/admin/tenants")).text();
    const first = await text();
    expect(await text()).toBe(first);
    const renamed = await send("admin", "PATCH", "/api/participants/lmc", { displayName: "LMC Maastricht" });
    expect(renamed.status).toBe(200);
    const after = JSON.parse(await text()) as Json[];
    expect(after.map((t) => t.displayName)).toContain("LMC Maastricht");
    expect(after.map((t) => t.displayName)).not.toContain("Limburg Medical Centre");
    const back = await send("admin", "PATCH", "/api/participants/lmc", {
      displayName: "Limburg Medical Centre",
    });
    expect(back.status).toBe(200);
    expect(await text()).toBe(first);
  });

  it("keeps the crawler's participant directory: DIDs validated, seeded entries kept", async () => {
    const list = (await (await api("admin", "/api/admin/participants")).json()) as Json[];
    expect(
      list
        .filter((e) => e.source === "seeded")
        .map((e) => e.did)
        .sort(),
    ).toEqual([
      "did:web:alpha-klinik.de:participant",
      "did:web:irs.fr:research",
      "did:web:lmc.nl:participant",
      "did:web:medreg.de:hdab",
      "did:web:pharmaco.de:research",
    ]);
    expect(list[0]!.catalogueUrl).toMatch(new RegExp(`^${h.server.url}/api/mock-dsp/.+/catalog/request$`));
    const missing = await send("admin", "POST", "/api/admin/participants", { did: "did:web:x.example" });
    expect((await body(missing)).error).toBe("did and displayName are required");
    for (const did of [
      "not-a-did",
      "did:web",
      "did:Web:x.example",
      "did:web:",
      "did:web:-x-.example",
      "did:web:exa mple.org",
    ]) {
      const res = await send("admin", "POST", "/api/admin/participants", { did, displayName: "X" });
      expect(res.status, did).toBe(400);
      expect((await body(res)).error).toMatch(/did/);
    }
    const bad = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:x.example",
      displayName: "X",
      catalogueUrl: "ftp://x",
    });
    expect(bad.status).toBe(400);
    // decision 0106: a data plane's hosts, bare host names or IP addresses; a bad one adds nothing
    const size = list.length;
    for (const dataPlaneHosts of [
      "dp.x.example",
      ["https://dp.x.example"],
      ["dp.x.example:8443"],
      ["dp.x.example/public"],
      ["*.x.example"],
      ["127.1"],
      [7],
    ]) {
      const res = await send("admin", "POST", "/api/admin/participants", {
        did: "did:web:x.example",
        displayName: "X",
        dataPlaneHosts,
      });
      expect(res.status, JSON.stringify(dataPlaneHosts)).toBe(400);
      expect((await body(res)).error).toBe(DATA_PLANE_HOSTS_INVALID);
    }
    const tooMany = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:x.example",
      displayName: "X",
      dataPlaneHosts: Array.from({ length: 17 }, (_, i) => `dp${i}.x.example`),
    });
    expect((await body(tooMany)).error).toBe("dataPlaneHosts lists at most 16 hosts");
    expect(((await (await api("admin", "/api/admin/participants")).json()) as Json[]).length).toBe(size);
    const withHosts = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:provider-qna.example",
      displayName: "Provider QnA",
      catalogueUrl: "http://provider-qna-controlplane:8082/api/dsp/catalog/request",
      dataPlaneHosts: ["provider-qna-dataplane", "DP.Provider-QnA.example"],
    });
    expect(withHosts.status).toBe(201);
    expect(await body(withHosts)).toMatchObject({
      dataPlaneHosts: ["provider-qna-dataplane", "dp.provider-qna.example"],
    });
    expect(
      ((await (await api("admin", "/api/admin/participants")).json()) as Json[]).find(
        (e) => e.did === "did:web:provider-qna.example",
      ),
    ).toMatchObject({ dataPlaneHosts: ["provider-qna-dataplane", "dp.provider-qna.example"] });
    // the container hands the directory to the pull (services.ts): the hosts it will GET from, by the DID
    expect(
      await h.server.services.dataspace.runtime.directory?.("did:web:provider-qna.example"),
    ).toMatchObject({
      catalogueUrl: "http://provider-qna-controlplane:8082/api/dsp/catalog/request",
      dataPlaneHosts: ["provider-qna-dataplane", "dp.provider-qna.example"],
    });
    expect(
      (await api("admin", "/api/admin/participants?did=did:web:provider-qna.example", { method: "DELETE" }))
        .status,
    ).toBe(204);
    const added = await send("admin", "POST", "/api/admin/participants", {
      did: "did:web:ziekenhuis.example.be:participant",
      displayName: "Ziekenhuis Example",
      country: "be",
    });
    expect(added.status).toBe(201);
    expect(await body(added)).toMatchObject({
      id: "ziekenhuis-example",
      source: "added",
      country: "BE",
      catalogueUrl: null,
      dataPlaneHosts: [],
      addedBy: "admin",
    });
    expect(
      (
        await send("admin", "POST", "/api/admin/participants", {
          did: "did:web:ziekenhuis.example.be:participant",
          displayName: "Again",
        })
      ).status,
    ).toBe(409);
    const seeded = await api("admin", "/api/admin/participants?did=did:web:lmc.nl:participant", {
      method: "DELETE",
    });
    expect(seeded.status).toBe(409);
    expect((await body(seeded)).error).toMatch(/^Seeded directory entries cannot be deleted/);
    expect((await api("admin", "/api/admin/participants", { method: "DELETE" })).status).toBe(400);
    expect(
      (await api("admin", "/api/admin/participants?did=did:web:nobody.example", { method: "DELETE" })).status,
    ).toBe(404);
    expect(
      (
        await api("admin", "/api/admin/participants?did=did:web:ziekenhuis.example.be:participant", {
          method: "DELETE",
        })
      ).status,
    ).toBe(204);
  });

  it("probes every component for real, with version and url", async () => {
    const res = await api("admin", "/api/admin/components");
    // the last background round of probes, with its age (as /api/health)
    expect(res.headers.get("age")).toMatch(/^\d+$/);
    expect(res.headers.get("x-probe-age-ms")).toMatch(/^\d+$/);
    const list = (await res.json()) as Json[];
    expect(list.map((c) => c.name)).toEqual([
      "graph-store",
      "identity-provider",
      "connector",
      "tenant-manager",
      "issuer",
      "identity-hub",
      "language-backend",
    ]);
    for (const c of list) {
      expect(c).toMatchObject({
        name: expect.any(String),
        kind: expect.any(String),
        version: expect.any(String),
        url: expect.any(String),
        health: "up",
      });
      expect(c.observed).toEqual(expect.any(String));
    }
    expect(list.find((c) => c.name === "connector")!.observed).toMatch(/5 participant contexts/);
    expect(list.find((c) => c.name === "identity-provider")!.url).toBe(`${h.server.url}/idp`);
    // the kept answers are the administrator's alone
    for (const path of ["/api/admin/components", "/api/admin/components/topology", "/api/debug/phase26"])
      for (const user of ["researcher", "regulator", "clinic", "patient1"])
        expect((await api(user, path)).status, `${user} ${path}`).toBe(403);
  });

  it("draws the topology, diagnoses and restarts", async () => {
    const t = await body(await api("admin", "/api/admin/components/topology"));
    const ids = (t.nodes as Json[]).map((n) => n.id);
    expect(ids).toEqual(
      expect.arrayContaining(["hub", "graph-store", "connector", "issuer", "identity-hub"]),
    );
    for (const e of t.edges as Json[]) {
      expect(ids).toContain(e.source);
      expect(ids).toContain(e.target);
    }
    const d = await body(await api("admin", "/api/admin/components/issuer/diagnosis"));
    expect(d).toMatchObject({
      component: { name: "issuer", health: "up" },
      probe: { call: expect.stringMatching(/credentialdefinitions/), observed: "3 credential definitions" },
      lastError: null,
      remedy: expect.any(Array),
    });
    // diagnoses asked together share one probe (one answer); the next one probes again
    const operator = h.server.services.operator;
    const together = [operator.diagnosis("graph-store"), operator.diagnosis("graph-store")];
    expect(together[0]).toBe(together[1]);
    const [first] = await Promise.all(together);
    expect(Object.isFrozen(first)).toBe(true);
    const next = await operator.diagnosis("graph-store");
    expect(next).not.toBe(first);
    expect(next.probe.at >= first!.probe.at).toBe(true);
    const unknown = await api("admin", "/api/admin/components/nothing/diagnosis");
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).error).toMatch(/^No component nothing/);

    for (const name of ["graph-store", "language-backend"]) {
      const refused = await api("admin", `/api/admin/components/${name}/restart`, { method: "POST" });
      expect(refused.status, name).toBe(409);
      expect((await body(refused)).error).toMatch(new RegExp(`^Cannot restart ${name}: `));
    }
    const beforeRestart = new Date().toISOString();
    const restarted = await api("admin", "/api/admin/components/connector/restart", { method: "POST" });
    expect(restarted.status).toBe(200);
    const rb = await body(restarted);
    expect(rb, JSON.stringify(rb.component)).toMatchObject({
      name: "connector",
      restarted: true,
      alsoRestarted: ["tenant-manager", "issuer", "identity-hub"],
      component: { health: "up" },
    });
    // the list forgot the round made before the restart
    for (const c of (await (await api("admin", "/api/admin/components")).json()) as Json[])
      expect((c.checkedAt as string) >= beforeRestart, `${String(c.name)} ${String(c.checkedAt)}`).toBe(true);
    // the dataspace works after the restart
    expect((await api("researcher", "/api/participants")).status).toBe(200);
    const creds = (await (await api("admin", "/api/credentials")).json()) as Json[];
    expect(creds.length).toBeGreaterThan(0);
    const idp = await api("admin", "/api/admin/components/identity-provider/restart", { method: "POST" });
    expect(idp.status).toBe(200);
    expect((await signIn(h.server.url, "clinic")).cookie).toMatch(/session-token/);
    const after = await body(await api("admin", "/api/admin/components/connector/diagnosis"));
    expect(after.lastRestart).toMatchObject({
      by: "admin",
      outcome: expect.stringMatching(/embedded local dataspace restarted/),
    });
    const trail = (await (await api("admin", "/api/admin/audit?action=component.restart")).json()) as Json[];
    expect(trail.map((e) => e.target)).toEqual(expect.arrayContaining(["connector", "graph-store"]));
  });

  it("checks federated discovery without changing anything", async () => {
    const before = ((await (await api("admin", "/api/admin/audit?limit=1")).json()) as Json[])[0]!.seq;
    const c = await body(await api("admin", "/api/debug/phase26"));
    expect(c).toMatchObject({
      readOnly: true,
      crawler: { tokenConfigured: true },
      participants: { total: expect.any(Number) },
    });
    expect((c.targets as Json[]).filter((t) => t.kind === "hub" && t.reachable === true).length).toBe(5);
    expect((c.federatedDatasets as Json[]).length).toBe(8);
    expect(c.totals).toMatchObject({ datasets: 8, offers: 8 });
    const afterSeq = ((await (await api("admin", "/api/admin/audit?limit=1")).json()) as Json[])[0]!.seq;
    expect(afterSeq).toBe(before);
  });

  it("tells where the identity provider is, without a session or a secret", async () => {
    const res = await fetch(`${h.server.url}/api/keycloak-config`);
    const b = await body(res);
    expect(b).toMatchObject({
      issuer: `${h.server.url}/idp`,
      embedded: true,
      discovery: `${h.server.url}/idp/.well-known/openid-configuration`,
      signIn: "/auth/signin",
    });
    expect(JSON.stringify(b)).not.toMatch(/secret/i);
  });
});

describe("a tampered audit file", () => {
  it("is detected by the chain verification, at the first broken entry", async () => {
    const file = path.join(h.server.dataDir, "hub.sqlite");
    const entries = (await (await api("admin", "/api/admin/audit?limit=1000")).json()) as Json[];
    const victim = entries[Math.floor(entries.length / 2)]!;
    const db = new Database(file);
    try {
      // the database refuses the edit; an attacker with the file drops the guard first
      expect(() =>
        db.prepare("UPDATE audit_entries SET outcome = 'forged' WHERE seq = ?").run(victim.seq),
      ).toThrow(/append-only/);
      db.exec("DROP TRIGGER audit_entries_no_update");
      db.prepare("UPDATE audit_entries SET outcome = 'forged' WHERE seq = ?").run(victim.seq);
    } finally {
      db.close();
    }
    const v = await body(await api("regulator", "/api/admin/audit?verify=true"));
    expect(v).toMatchObject({
      ok: false,
      firstBroken: { seq: victim.seq, id: victim.id, reason: "entry content does not match its hash" },
    });
    expect(v.checked).toBe((victim.seq as number) - 1);
  });
});
