import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { presentSdJwtVc } from "../../server/eudi/sd-jwt";
import { startTestServer, type TestServer } from "../support/server";
import { type Json, holderKeys, eudiHarness } from "./eudi.support";

/**
 * Black-box tests of wallet sign-in (OpenID4VP): the embedded verifier with the development wallet
 * page, every refusal of a presentation (nonce, audience, expiry, signature, untrusted issuer,
 * tampered disclosure, replay), no-match, session hand-over exactly once, persistence across a
 * restart, and an external verifier (EUDI reference verifier API) played by a test double.
 * Forged presentations are built here with the development issuer (reachable through the server's
 * services, as a wallet's issuer would be) or with keys of our own.
 *
 * This file: starting a sign-in, the development wallet and the hand-over, persistence, an external verifier.
 */

const h = eudiHarness();
const { start } = h;

const MARIA = { givenName: "", familyName: "", birthDate: "" };

beforeAll(async () => {
  const n = await h.server.services.graph.getNode("patient-000001");
  Object.assign(MARIA, {
    givenName: n!.properties.givenName,
    familyName: n!.properties.familyName,
    birthDate: n!.properties.birthDate,
  });
});

describe("starting a wallet sign-in", () => {
  it("answers sid, an openid4vp:// link, a QR code and the expiry, and binds the browser with a cookie", async () => {
    const s = await start();
    expect(s.body).toMatchObject({ sid: expect.any(String), status: "pending", verifier: "embedded" });
    expect(s.body.walletLink).toMatch(/^openid4vp:\/\/\?client_id=redirect_uri%3A.+&request_uri=/);
    expect(s.body.qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(s.body.qr.split(",")[1], "base64").toString()).toContain("<svg");
    const ttl = Date.parse(s.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(4 * 60_000);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);
    expect(s.jar.get("app-auth.eudi-binding")).toMatch(new RegExp(`^${s.body.sid}\\.`));
    // the request object: PID claims by DCQL, a fresh nonce and state, direct_post to our verifier
    expect(s.request).toMatchObject({
      response_type: "vp_token",
      response_mode: "direct_post",
      client_id: `redirect_uri:${h.server.url}/auth/wallet/response`,
      response_uri: `${h.server.url}/auth/wallet/response`,
      dcql_query: {
        credentials: [
          {
            id: "pid",
            format: "dc+sd-jwt",
            meta: { vct_values: expect.arrayContaining(["urn:eudi:pid:1"]) },
          },
        ],
      },
    });
    expect(s.request.dcql_query.credentials[0].claims.map((c: Json) => c.path[0])).toEqual([
      "given_name",
      "family_name",
      "birthdate",
    ]);
    const other = await start();
    expect(other.request.nonce).not.toBe(s.request.nonce);
    expect(other.request.state).not.toBe(s.request.state);
    expect((await s.status()).body).toMatchObject({ sid: s.body.sid, status: "pending" });
  });

  it("answers 400 without sid and 404 for an unknown one", async () => {
    expect((await fetch(`${h.server.url}/api/auth/eudi/status`)).status).toBe(400);
    const unknown = await fetch(`${h.server.url}/api/auth/eudi/status?sid=nope`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatch(/Unknown wallet sign-in/);
    expect((await fetch(`${h.server.url}/auth/wallet/request/nope`)).status).toBe(404);
  });
});

describe("the development wallet page and the session hand-over", () => {
  it("signs the patient in through the wallet page, and hands the session over exactly once", async () => {
    const s = await start();
    const page = await fetch(`${h.server.url}/wallet?request=${encodeURIComponent(s.body.walletLink)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("asks for your identity");
    expect(html).toContain("given_name, family_name, birthdate");

    const shared = await fetch(`${h.server.url}/wallet?request=${encodeURIComponent(s.body.walletLink)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        request: s.body.walletLink,
        identity: "patient-000001",
        intent: "share",
      }).toString(),
    });
    expect(shared.status).toBe(200);
    expect((await shared.text()).replaceAll("<!-- -->", "")).toContain(
      `Shared given_name, family_name, birthdate of ${MARIA.givenName} ${MARIA.familyName}`,
    );

    // someone who learnt the sid but lacks the binding cookie gets no session
    const stranger = await fetch(`${h.server.url}/api/auth/eudi/status?sid=${s.body.sid}`);
    expect(stranger.headers.getSetCookie()).toEqual([]);
    expect(await stranger.json()).toMatchObject({ status: "completed", session: "not-this-browser" });

    const first = await s.status();
    expect(first.body).toMatchObject({
      status: "completed",
      session: "issued",
      redirectTo: "/devices",
      user: { patientId: "patient-000001", name: `${MARIA.givenName} ${MARIA.familyName}` },
    });
    expect(first.res.headers.getSetCookie().some((c) => c.startsWith("app-auth.session-token="))).toBe(true);
    const second = await s.status();
    expect(second.res.headers.getSetCookie()).toEqual([]);
    expect(second.body).toMatchObject({ status: "completed", session: "already-issued" });

    // a normal patient session: it reaches patient1's own record
    const record = await fetch(`${h.server.url}/api/patient/app/record`, {
      headers: { cookie: s.jar.header() },
    });
    expect(record.status).toBe(200);
    expect((await record.json()).entry[0].resource.id).toBe("patient-000001");
    const other = await fetch(`${h.server.url}/api/patient/profile?patientId=patient-000002`, {
      headers: { cookie: s.jar.header() },
    });
    expect(other.status).toBe(403);
    const audit = await h.server.services.audit.list({ action: "eudi.signin", limit: 5 });
    expect(audit[0]).toMatchObject({ actor: "patient1", target: "patient-000001", kind: "session" });
  });

  it("refuses a PID that matches no patient record, with a clear message and no session", async () => {
    const s = await start();
    const res = await h.server.services.eudi.devWallet!.present(s.body.walletLink, {
      givenName: "Erika",
      familyName: "Mustermann",
      birthDate: "1964-08-12",
    });
    expect(res.ok).toBe(true);
    const st = await s.status();
    expect(st.body.status).toBe("failed");
    expect(st.body.reason).toMatch(
      /No patient record matches the name and date of birth your wallet presented/,
    );
    expect(st.res.headers.getSetCookie().filter((c) => c.startsWith("app-auth.session-token"))).toEqual([]);
  });

  it("matches names regardless of case, and refuses a right name with a wrong birth date", async () => {
    const s = await start();
    await h.server.services.eudi.devWallet!.present(s.body.walletLink, {
      ...MARIA,
      givenName: MARIA.givenName.toUpperCase(),
      familyName: MARIA.familyName.toLowerCase(),
    });
    expect((await s.status()).body).toMatchObject({ status: "completed", session: "issued" });
    const w = await start();
    await h.server.services.eudi.devWallet!.present(w.body.walletLink, { ...MARIA, birthDate: "1901-01-01" });
    expect((await w.status()).body.status).toBe("failed");
  });

  it("refuses a custom identity born on a day that does not exist in place, and presents nothing", async () => {
    const s = await start();
    const shared = await fetch(`${h.server.url}/wallet?request=${encodeURIComponent(s.body.walletLink)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        request: s.body.walletLink,
        identity: "custom",
        givenName: MARIA.givenName,
        familyName: MARIA.familyName,
        birthDate: "2026-02-30",
        intent: "share",
      }).toString(),
    });
    expect(shared.status).toBe(200);
    expect(await shared.text()).toContain("a birth date that exists (YYYY-MM-DD) for the custom identity");
    expect((await s.status()).body.status).toBe("pending");
  });

  it("tells the browser when the wallet declines", async () => {
    const s = await start();
    await h.server.services.eudi.devWallet!.decline(s.body.walletLink);
    const st = (await s.status()).body;
    expect(st.status).toBe("failed");
    expect(st.reason).toMatch(/did not share/);
  });
});

describe("persistence", () => {
  it("a sign-in in flight survives a restart of the server", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const { freePort } = await import("../support/server");
    const dataDir = mkdtempSync(path.join(tmpdir(), "hub-eudi-restart-"));
    const port = String(await freePort());
    const env = { PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` };
    let first: TestServer | undefined = await startTestServer(env, { dataDir });
    let second: TestServer | undefined;
    try {
      const s = await start(first.url);
      await first.close();
      first = undefined;
      second = await startTestServer(env, { dataDir });
      expect((await s.status()).body.status).toBe("pending");
      const res = await second.services.eudi.devWallet!.present(s.body.walletLink, MARIA);
      expect(res.ok).toBe(true);
      expect((await s.status()).body).toMatchObject({ status: "completed", session: "issued" });
    } finally {
      await first?.close();
      await second?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("an external verifier (EUDI_VERIFIER_URL)", () => {
  let double: Server;
  let remote: TestServer;
  const tx = new Map<string, { nonce: string; response?: unknown }>();
  const CLIENT_ID = "x509_san_dns:verifier.test";

  beforeAll(async () => {
    // the EUDI reference verifier's Verifier API: initialise a transaction, poll the wallet response
    double = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const send = (status: number, v: unknown) =>
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(v));
        if (req.method === "POST" && req.url === "/ui/presentations") {
          const init = JSON.parse(body) as { nonce: string; dcql_query: Json; response_mode: string };
          if (init.response_mode !== "direct_post" || init.dcql_query.credentials[0].id !== "pid")
            return send(400, { error: "bad init" });
          const id = `tx-${tx.size + 1}`;
          tx.set(id, { nonce: init.nonce });
          return send(200, {
            transaction_id: id,
            client_id: CLIENT_ID,
            request_uri: `https://verifier.test/wallet/request.jwt/${id}`,
          });
        }
        const m = /^\/ui\/presentations\/([\w-]+)$/.exec(req.url ?? "");
        if (req.method === "GET" && m) {
          const t = tx.get(m[1]);
          if (!t?.response) return send(400, { error: "no wallet response yet" });
          return send(200, t.response);
        }
        send(404, {});
      });
    });
    await new Promise<void>((r) => double.listen(0, "127.0.0.1", () => r()));
    remote = await startTestServer({
      EUDI_VERIFIER_URL: `http://127.0.0.1:${(double.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    await remote?.close();
    await new Promise((r) => double?.close(r));
  });

  it("starts the transaction at the verifier, polls it, verifies the vp_token itself and signs the patient in", async () => {
    const s = await start(remote.url);
    expect(s.body).toMatchObject({ verifier: "remote" });
    expect(s.body.walletLink).toBe(
      `openid4vp://?client_id=${encodeURIComponent(CLIENT_ID)}&request_uri=${encodeURIComponent("https://verifier.test/wallet/request.jwt/tx-1")}`,
    );
    expect((await s.status()).body.status).toBe("pending");
    const t = tx.get("tx-1")!;
    const holder = await holderKeys();
    const sdJwt = await remote.services.eudi.devWallet!.issuePid(MARIA, holder.publicJwk);
    const p = await presentSdJwtVc({
      sdJwt,
      disclose: ["given_name", "family_name", "birthdate"],
      holderKey: holder.privateKey,
      audience: CLIENT_ID,
      nonce: t.nonce,
    });
    t.response = { vp_token: { pid: [p] } };
    expect((await s.status()).body).toMatchObject({
      status: "completed",
      session: "issued",
      user: { patientId: "patient-000001" },
    });
  });

  it("refuses a vp_token the verifier passes on for another nonce", async () => {
    const s = await start(remote.url);
    const id = [...tx.keys()].pop()!;
    const holder = await holderKeys();
    const sdJwt = await remote.services.eudi.devWallet!.issuePid(MARIA, holder.publicJwk);
    tx.get(id)!.response = {
      vp_token: {
        pid: [
          await presentSdJwtVc({
            sdJwt,
            disclose: ["given_name", "family_name", "birthdate"],
            holderKey: holder.privateKey,
            audience: CLIENT_ID,
            nonce: "stale",
          }),
        ],
      },
    };
    const st = (await s.status()).body;
    expect(st.status).toBe("failed");
    expect(st.reason).toMatch(/nonce mismatch/);
  });
});
