import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import {
  createCredentialService,
  REVOKE_OWN_ONLY,
  type CredentialService,
} from "../../server/credentials/service";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { ISSUER_PAGE } from "../../server/dataspace/issuer-client";
import { startLocalDataspace, type LocalDataspace } from "../../server/local-dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { personaUser as user } from "../support/dataspace-call";
import { standInPermits } from "../support/permits";

/**
 * A revocation by the access body (not the operator) checks who holds the credential against the
 * issuer: one credential read fresh by its id, so a credential past the issuer's first page of
 * ISSUER_PAGE counts, and so does one issued a moment ago while a list read before it is still kept.
 * The supervisors' listing reads every page. Against the embedded dataspace (real HTTP, real signatures).
 */

const STEP_MS = 20;
const config = loadConfig({ NODE_ENV: "test", UPSTREAM_TIMEOUT_MS: "5000" });
let local: LocalDataspace;
const opened: { ds: Dataspace; db: Db }[] = [];
/** follows the embedded dataspace's change counter, as the hub does */
let live: CredentialService;
/**
 * keeps the issuer's answers for 10 s whatever changes at the issuer (no change counter): a list read
 * before an issuance that another instance or the issuer itself made
 */
let kept: CredentialService;

async function open(embedded: Parameters<typeof createDataspace>[1]["embedded"], readCacheMs?: number) {
  const db = openDatabase(":memory:");
  const ds = await createDataspace(config, { db, embedded, readCacheMs, permits: standInPermits });
  opened.push({ ds, db });
  return createCredentialService({ config, dataspace: ds });
}
const ds = () => opened[0].ds;

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (const start = Date.now(); ;) {
    const v = await read();
    if (done(v) || Date.now() - start > 20_000) return v;
    await new Promise((r) => setTimeout(r, STEP_MS));
  }
}

/** the credential of `type` issued to `contextId` through `live`, once issued */
async function issue(contextId: string, type: string) {
  const before = new Set((await live.list(user("admin"), contextId)).map((c) => c.id));
  await live.request(contextId, type, user("admin"));
  const list = await until(
    () => live.list(user("admin"), contextId),
    (l) => l.some((c) => !before.has(c.id) && c.type.includes(type)),
  );
  const found = list.find((c) => !before.has(c.id) && c.type.includes(type));
  expect(found, `${contextId}'s new ${type}`).toBeDefined();
  return found!;
}

/** the issuer's record id of the credential whose id is `id`, as the supervisors' listing carries it */
async function recordIdOf(id: string): Promise<string> {
  const listed = (await live.list(user("admin"))).find((c) => c.id === id);
  expect(listed?.recordId, `the issuer's record of ${id}`).toEqual(expect.any(String));
  return listed!.recordId!;
}

beforeAll(async () => {
  local = await startLocalDataspace({
    dataDir: ":memory:",
    stepMs: STEP_MS,
    dataSource: async () => ({}),
    onError: () => {},
  });
  live = await open({ ...local, close: async () => {} });
  kept = await open({ ...local, changeVersion: undefined, close: async () => {} }, 10_000);
});

afterAll(async () => {
  for (const o of opened) {
    await o.ds.close();
    o.db.close();
  }
  await local?.close();
});

describe("revocation by the holder's organisation", () => {
  it("revokes the credential past the issuer's first page, and the listing holds every page", async () => {
    // a full page of pharmaco's credentials first, in one issuance
    const rt = ds().runtime;
    const labels = async () =>
      (await rt.identityHub!.listCredentials("pharmaco")).filter((c) =>
        [c.verifiableCredential.credential.type].flat().includes("DataQualityLabelCredential"),
      ).length;
    const before = await labels();
    await rt.identityHub!.requestCredentials("pharmaco", {
      issuerDid: local.issuerDid,
      holderPid: randomUUID(),
      credentials: Array.from({ length: ISSUER_PAGE }, () => ({
        format: "VC1_0_JWT",
        type: "DataQualityLabelCredential",
        id: "DataQualityLabelCredential",
      })),
    });
    // every credential of the request is held once it is issued
    expect(await until(labels, (n) => n >= before + ISSUER_PAGE)).toBe(before + ISSUER_PAGE);
    const own = await issue("medreg", "DataQualityLabelCredential");

    await live.revoke(own.id, user("regulator"));
    const recordId = await recordIdOf(own.id);
    expect(await rt.issuer!.credentialStatus(recordId)).toMatchObject({ status: "revocation" });

    // it was past the first page; the supervisors' listing holds every page
    const issued = await rt.issuer!.listCredentials(undefined);
    expect(issued.findIndex((c) => c.id === recordId)).toBeGreaterThanOrEqual(ISSUER_PAGE);
    const all = await live.list(user("admin"));
    expect(all.map((c) => c.recordId)).toEqual(issued.map((c) => c.id));
    expect(all.find((c) => c.id === own.id)).toMatchObject({
      participantContextId: "medreg",
      status: "revoked",
      recordId,
    });
  });

  it("revokes a credential issued after the issuer's list was read and kept", async () => {
    // the kept list of every issued credential, read before the issuance
    const before = await kept.list(user("admin"));
    const own = await issue("medreg", "DataProcessingPurposeCredential");
    expect(before.some((c) => c.id === own.id)).toBe(false);

    await kept.revoke(own.id, user("regulator"));
    const status = await ds().runtime.issuer!.credentialStatus(await recordIdOf(own.id));
    expect(status).toMatchObject({ status: "revocation" });

    // unchanged: another organisation's credential is refused, an unknown one not found
    const lmc = before.find((c) => c.participantContextId === "lmc")!;
    await expect(kept.revoke(lmc.id, user("regulator"))).rejects.toMatchObject({
      status: 403,
      message: REVOKE_OWN_ONLY,
    });
    await expect(kept.revoke(`urn:uuid:${randomUUID()}`, user("regulator"))).rejects.toMatchObject({
      status: 404,
      message: "Credential not found",
    });
  });
});

describe("the issuer's record id", () => {
  it("is the record's own, not the credential's; revocation takes either, status and the issuer the record id", async () => {
    const rt = ds().runtime;
    const a = await issue("medreg", "DataProcessingPurposeCredential");
    const b = await issue("medreg", "DataProcessingPurposeCredential");
    // listed from where it is held, the issuer's record id is not known
    expect([a.recordId, b.recordId]).toEqual([null, null]);
    const [ra, rb] = [await recordIdOf(a.id), await recordIdOf(b.id)];
    // EDC IdentityHub 0.15.1: a record id of its own, not derived from the credential's id
    expect([ra, `urn:uuid:${ra}`]).not.toContain(a.id);
    expect([rb, `urn:uuid:${rb}`]).not.toContain(b.id);
    expect(await rt.issuer!.credentialStatus(ra)).toMatchObject({ credentialId: ra, status: null });
    // by the credential's id (as the page and the spec's Credential carry it) as the operator, and by
    // the record id as the access body
    await live.revoke(a.id, user("admin"));
    await live.revoke(rb, user("regulator"));
    for (const r of [ra, rb])
      expect(await rt.issuer!.credentialStatus(r)).toMatchObject({ credentialId: r, status: "revocation" });
    const all = await live.list(user("admin"));
    expect(all.filter((c) => c.id === a.id || c.id === b.id).map((c) => c.status)).toEqual([
      "revoked",
      "revoked",
    ]);
    // the issuer addresses its records by their own id only
    await expect(rt.issuer!.revokeCredential(a.id)).rejects.toMatchObject({ status: 404 });
  });
});
