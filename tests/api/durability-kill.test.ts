import Database from "better-sqlite3";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { auditAnchor } from "../../server/audit/key";
import { createAuditLog } from "../../server/audit/log";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { freePort } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { spawnBuiltServer } from "../support/built-server";

/**
 * kill -9 under a mixed write load, 20 times: the built server (as `npm start` runs it) takes
 * concurrent writes on every write route — catalogue, research consent, access-body submissions and
 * transitions, ODRL policies, credential requests, contract negotiations — and is killed with
 * SIGKILL at a random moment. Before the restart the audit chain of the SQLite file verifies and
 * every acknowledged (2xx) write has its audit entry; after the restart every acknowledged dataset,
 * application, policy and negotiation is there.
 *
 * RELIABILITY_OUT_DURABILITY=<file> writes the figures as JSON.
 */

const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? "20");
const dataDir = mkdtempSync(path.join(tmpdir(), "hub-kill-"));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number): Promise<ChildProcess> {
  // these tests read the SQLite file itself: the embedded store even when DATABASE_URL is set around them
  return (await spawnBuiltServer({ port, dataDir, env: { DATABASE_URL: "" } })).child;
}

interface Ack {
  kind: string;
  /** a string the audit entry's target contains */
  token: string;
  /** the resource to read back after the restart */
  id?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON
type Json = any;

let seq = 0;
const next = () => `${Date.now().toString(36)}-${(seq++).toString(36)}`;

type Writer = (who: Record<string, Signed>, studies: string[], apps: string[]) => Promise<Ack | null>;

const post = async (s: Signed, p: string, body: unknown): Promise<{ status: number; body: Json }> => {
  const res = await s.api(p, {
    method: "POST",
    signal: AbortSignal.timeout(10_000),
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

const WRITERS: Record<string, Writer> = {
  async catalogue(who) {
    const id = `ds-kill-${next()}`;
    const r = await post(who.clinic, "/api/catalog", { id, title: `Kill test ${id}` });
    return r.status === 201 ? { kind: "catalogue", token: id, id } : null;
  },
  async consent(who, studies) {
    const studyId = studies[seq++ % studies.length];
    const patientId = "patient-000001";
    const revoke = await who.patient1.api(
      `/api/patient/research?patientId=${patientId}&studyId=${encodeURIComponent(studyId)}`,
      { method: "DELETE" },
    );
    await revoke.arrayBuffer();
    const r = await post(who.patient1, "/api/patient/research", { patientId, studyId });
    return r.status === 201 ? { kind: "consent", token: `${patientId}/${studyId}` } : null;
  },
  async application(who, _s, apps) {
    const r = await post(who.researcher, "/api/compliance/applications", {
      title: `Kill test application ${next()}`,
      summary: "Durability under SIGKILL: this application must survive a crash once acknowledged.",
      purpose: "scientificResearch",
      datasets: ["dataset-lmc-omop"],
    });
    if (r.status !== 201) return null;
    apps.push(r.body.id);
    return { kind: "application", token: r.body.id, id: r.body.id };
  },
  async transition(who, _s, apps) {
    const applicationId = apps.shift();
    if (!applicationId) return null;
    const r = await post(who.regulator, "/api/compliance/applications/complete", {
      applicationId,
      complete: true,
    });
    return r.status === 200 ? { kind: "transition", token: applicationId } : null;
  },
  async policy(who) {
    const id = `offer-kill-${next()}`;
    const r = await post(who.admin, "/api/admin/policies", {
      participantId: "lmc",
      policy: {
        "@id": id,
        "@type": "PolicyDefinition",
        policy: { "@type": "Offer", assigner: "did:web:lmc.nl:participant", permission: [{ action: "use" }] },
      },
    });
    return r.status === 201 ? { kind: "policy", token: id, id } : null;
  },
  async credential(who) {
    const r = await post(who.researcher, "/api/credentials/request", {
      participantContextId: "pharmaco",
      credentialType: "DataProcessingPurposeCredential",
    });
    return r.status === 201 ? { kind: "credential", token: r.body.holderPid } : null;
  },
  async negotiation(who) {
    const r = await post(who.researcher, "/api/negotiations", {
      participantId: "pharmaco",
      counterPartyAddress: "http://127.0.0.1:9/api/dsp",
      counterPartyId: "lmc",
      assetId: "fhir-cohort-bundle",
      offerId: `offer-${next()}`,
    });
    return r.status === 201 ? { kind: "negotiation", token: r.body["@id"], id: r.body["@id"] } : null;
  },
};

it(`keeps every acknowledged write and its audit entry across ${ROUNDS} kills under load`, async () => {
  // freePort() is outside the ephemeral range: no outgoing connection takes it while the server is down
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  child = await start(port);
  const who: Record<string, Signed> = {};
  for (const p of ["admin", "clinic", "patient1", "researcher", "regulator"]) who[p] = await signIn(url, p);
  const programmes = await (await who.patient1.api("/api/patient/research?patientId=patient-000001")).text();
  const studies = [...new Set(programmes.match(/approval-[\w-]+/g) ?? [])];
  expect(studies.length).toBeGreaterThan(0);

  const acks: Ack[] = [];
  const apps: string[] = [];
  const perRound: { round: number; acked: number; killedAfterMs: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    let stop = false;
    const before = acks.length;
    const workers = Object.values(WRITERS).map(async (write) => {
      while (!stop) {
        try {
          const ack = await write(who, studies, apps);
          // a 2xx that arrived was sent before the kill: it must survive
          if (ack) acks.push(ack);
          // nothing to do (no application to decide yet): yield to timers and I/O
          else await new Promise((r) => setTimeout(r, 20));
        } catch {
          // the connection died with the server: not acknowledged
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    const killAfter = 1000 + Math.floor(Math.random() * 2000);
    await new Promise((r) => setTimeout(r, killAfter));
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
    stop = true;
    await Promise.all(workers);
    perRound.push({ round, acked: acks.length - before, killedAfterMs: killAfter });
    if (process.env.DURABILITY_TRACE)
      process.stderr.write(`round ${round}: ${acks.length - before} acknowledged\n`);

    // the file as the crash left it: the chain verifies, every acknowledged write has its entry
    const db = new Database(path.join(dataDir, "hub.sqlite"));
    try {
      expect(
        (
          await (
            await createAuditLog(
              openSqliteRelational(db),
              db,
              // the server's own anchor: the key file and checkpoints in its DATA_DIR (decision 0044)
              auditAnchor({ dataDir, auditKey: undefined, auditCheckpoints: undefined }),
            )
          ).verify()
        ).ok,
        `round ${round}: audit chain`,
      ).toBe(true);
      const has = db.prepare(
        "SELECT 1 FROM audit_entries WHERE instr(target, ?) > 0 AND outcome <> 'failure'",
      );
      const missing = acks.filter((a) => !has.get(a.token));
      expect(missing, `round ${round}: acknowledged writes without audit entry`).toEqual([]);
    } finally {
      db.close();
    }
    child = await start(port);
  }

  // after the last restart: every acknowledged resource is there
  const catalogue = await (await who.clinic.api("/api/catalog")).text();
  const policies = await (await who.admin.api("/api/admin/policies?participantId=lmc")).text();
  const applications = await (await who.researcher.api("/api/compliance/applications")).text();
  const lost: string[] = [];
  for (const a of acks) {
    if (a.kind === "catalogue" && !catalogue.includes(`"${a.id}"`)) lost.push(`${a.kind} ${a.id}`);
    if (a.kind === "policy" && !policies.includes(`"${a.id}"`)) lost.push(`${a.kind} ${a.id}`);
    if (a.kind === "application" && !applications.includes(`"${a.id}"`)) lost.push(`${a.kind} ${a.id}`);
  }
  for (const a of acks.filter((x) => x.kind === "negotiation").slice(-10)) {
    const res = await who.researcher.api(
      `/api/negotiations/${encodeURIComponent(a.id!)}?participantId=pharmaco`,
    );
    if (res.status !== 200) lost.push(`negotiation ${a.id} (${res.status})`);
  }
  const byKind: Record<string, number> = {};
  for (const a of acks) byKind[a.kind] = (byKind[a.kind] ?? 0) + 1;
  const figures = { rounds: ROUNDS, acknowledged: acks.length, byKind, lost: lost.length, perRound };
  console.log("[durability] figures", JSON.stringify(figures));
  if (process.env.RELIABILITY_OUT_DURABILITY)
    writeFileSync(process.env.RELIABILITY_OUT_DURABILITY, JSON.stringify(figures, null, 2));
  expect(lost).toEqual([]);
  // the hub's own writes must have been exercised; policies, credentials and negotiations also need the
  // embedded connector, which on a loaded machine often answers after the time-out (502: not acknowledged)
  for (const kind of ["catalogue", "consent", "application", "transition"])
    expect(byKind[kind] ?? 0, `${kind} writes acknowledged`).toBeGreaterThan(0);
  child.kill("SIGTERM");
  await new Promise((r) => child!.once("exit", r));
  child = undefined;
}, 1_200_000);
