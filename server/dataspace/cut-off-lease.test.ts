import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { until } from "../../tests/support/until";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createAuditLog } from "../audit/log";
import { loadConfig } from "../config";
import { openDatabase } from "../storage/database";
import { createDataspace, type Dataspace } from "./index";

/*
 * Decision 0091: an attempt of a permit cut-off never outlives its lease. Against a slow connector (a
 * double that takes 300 ms per termination, within the 1 s time-out) 16 open transfers take longer
 * than a 4 s lease: the attempt stops while a call's time-out is still left in its lease and leaves the
 * rest pending, due at once (it only ran out of time), so the next attempt, on the other instance after the
 * lease, ends the rest and none runs beside another. Each transfer is asked to terminate, and audited, once.
 */

const PERMIT = "MEDREG-DP-LEASE-0001";
const CONSUMER = "pharmaco";
const AGREEMENT = "agreement-lease-1";
const LEASE_MS = 4_000;
const TIMEOUT_MS = 1_000;
const TERMINATE_MS = 300;
const TRANSFERS = Array.from({ length: 16 }, (_, i) => `tp-${String(i + 1).padStart(2, "0")}`);
const TERMINATE = /^\/m\/v4beta\/transferprocesses\/([^/]+)\/terminate$/;

let double: UpstreamDouble;
beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(() => double.close());

let store: TestStore | undefined;
const instances: Dataspace[] = [];
afterEach(async () => {
  for (const ds of instances.splice(0)) await ds.close();
  await store?.close();
  store = undefined;
});

/** the connector: one finalised negotiation, the transfers of its agreement, terminated slowly */
function slowConnector() {
  double.reset();
  const state = new Map(TRANSFERS.map((id) => [id, "STARTED"]));
  double
    .on("GET", "/m/v4beta/contractnegotiations/neg-lease-1", {
      json: { "@id": "neg-lease-1", state: "FINALIZED", contractAgreementId: AGREEMENT },
    })
    .on("POST", "/m/v4beta/transferprocesses/request", {
      reply: () => ({ json: [...state].map(([id, s]) => ({ "@id": id, state: s, contractId: AGREEMENT })) }),
    })
    .on("POST", TERMINATE, {
      delayMs: TERMINATE_MS,
      reply: (req) => {
        const id = TERMINATE.exec(req.path)![1]!;
        if (state.get(id) === "TERMINATED") return { status: 409, json: [{ message: "already terminated" }] };
        state.set(id, "TERMINATED");
        return { status: 204 };
      },
    });
}

describe.each(storeDialects())("a permit cut-off's attempt within its lease on %s", (dialect) => {
  it("stops before its lease ends, the rest due at once; the next attempt ends the rest; each transfer is ended and audited once", async () => {
    slowConnector();
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: ":memory:",
      PUBLIC_URL: "http://127.0.0.1:3995",
      CONNECTOR_MANAGEMENT_URL: `${double.url}/m`,
      CONNECTOR_PARTICIPANT_ID: CONSUMER,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      DEMO_RECORDS: "off",
    });
    const instance = async (rel: TestStore["rel"]) => {
      const ds = await createDataspace(config, {
        db: openDatabase(":memory:"),
        rel,
        audit,
        cutOffLeaseMs: LEASE_MS,
      });
      instances.push(ds);
      return ds;
    };
    /** the terminations the connector was asked for, and the audit entries of terminations */
    const askedAndAudited = async () => ({
      asked: double
        .received("POST", TERMINATE)
        .map((r) => TERMINATE.exec(r.path)![1]!)
        .sort(),
      audited: (await audit.list({ action: "transfer.terminate", limit: 100 }))
        .map((e) => `${e.outcome} ${e.target.split(" ")[1]}`)
        .sort(),
    });
    const [one, other] = [await instance(store.rel), await instance(await store.another())];
    await one.runtime.contractPermits.record({
      negotiationId: "neg-lease-1",
      participantId: CONSUMER,
      assetId: "fhir-cohort-bundle",
      permitId: PERMIT,
      disclosure: "pseudonymised",
      datasets: [],
    });

    const first = one
      .cutOffPermit(PERMIT, "Breach of the permit conditions", "regulator")
      .then((outcome) => ({
        outcome,
        at: Date.now(),
      }));
    // the lease the revocation's attempt holds
    let leaseEnd: number | undefined;
    while (leaseEnd === undefined) leaseEnd = (await one.runtime.cutOffs.get(PERMIT))?.nextAttemptAt;
    const { outcome, at } = await first;
    // it stopped within its lease, only out of time: what is left is due at once, not after a backoff
    expect(at).toBeLessThanOrEqual(leaseEnd);
    const firstEnded = outcome.terminated.map((t) => t.transferId);
    expect(firstEnded.length).toBeGreaterThan(0);
    expect(firstEnded.length).toBeLessThan(TRANSFERS.length);
    expect(outcome.failed).toEqual([{ participantId: CONSUMER, error: expect.stringMatching(/lease/) }]);
    const left = await one.runtime.cutOffs.get(PERMIT);
    expect(left).toMatchObject({ attempts: 1, doneAt: null });
    expect(left!.nextAttemptAt).toBeLessThanOrEqual(Date.now());

    // the other instance's timer, once the first lease has ended, takes up the rest (had the first
    // attempt still been running, beside it: it found the transfers the first was ending still open,
    // asked again, had 409 and audited them again)
    await new Promise((r) => setTimeout(r, leaseEnd! - Date.now() + 50));
    await other.retryCutOffs(); // or an instance's own timer took it up first: one of them claims it
    const done = await until(
      () => one.runtime.cutOffs.get(PERMIT),
      (r) => r?.doneAt != null,
      10_000,
    );
    // two attempts, or more where a loaded machine makes the second outlast its lease too: what must
    // hold is that each transfer was ended once (below), not how many leases that took
    expect(done).toMatchObject({ lastError: null });
    expect(done!.attempts).toBeGreaterThanOrEqual(2);

    // each transfer asked once, and audited once
    expect(await askedAndAudited()).toEqual({
      asked: TRANSFERS,
      audited: TRANSFERS.map((id) => `success ${id}`),
    });
  });
});
