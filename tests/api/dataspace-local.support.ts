import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import type { AuditInput } from "../../server/audit/model";
import { callDataspace, personaUser } from "../support/dataspace-call";
import { standInPermits } from "../support/permits";
import { loadConfig } from "../../server/config";
import type { Dataspace } from "../../server/dataspace";
import { startDataspace } from "../../server/start-dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { until } from "../support/until";

/** Helpers and the harness shared by the test files split from dataspace-local.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type JsonBody = any;

export const ALPHA_DID = "did:web:alpha-klinik.de:participant";

export interface Call {
  query?: Record<string, string>;
  body?: unknown;
  params?: Record<string, string>;
  as?: string;
}

export const STEP_MS = 40;

/**
 * `DATASPACE_WORKER=1`: these tests run against the embedded dataspace in its worker thread (the
 * built server's form; needs `node scripts/build.mjs`) instead of on the test's own event loop.
 */
const worker =
  process.env.DATASPACE_WORKER === "1"
    ? pathToFileURL(path.resolve("build/server/local-dataspace-worker.js"))
    : false;

/**
 * The per-file state of the split dataspace-local tests: the embedded dataspace started by the
 * container's own startDataspace over a fresh data directory and an in-memory store, the audit
 * entries and data-plane pulls it made, and the helpers that call the dataspace's route handlers
 * (`call`), poll (`until`) and read alpha's offer from pharmaco (`alphaOffer`). Registers its own
 * beforeAll/afterAll; `open()` starts the dataspace again on the same data directory (a restart).
 */
export function localDataspaceHarness() {
  let dataDir: string;
  let db: Db;
  let ds: Dataspace;
  const audit: AuditInput[] = [];
  const pulled: { assetId: string; provider?: string }[] = [];
  const dataSource = async (assetId: string, provider?: string) => {
    pulled.push({ assetId, provider });
    return {
      resourceType: "Bundle",
      type: "collection",
      entry: [{ resource: { resourceType: "Patient", id: `patient-of-${provider}` } }],
    };
  };

  async function open(): Promise<Dataspace> {
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      UPSTREAM_TIMEOUT_MS: "3000",
      PUBLIC_URL: "http://127.0.0.1:3999",
    });
    ds = await startDataspace(config, {
      db,
      audit: { append: async (e: AuditInput) => audit.push(e) },
      dataSource,
      local: { stepMs: STEP_MS, worker },
    });
    ds.usePermits(standInPermits);
    return ds;
  }

  const call = (key: string, opts: Call = {}) => callDataspace(ds, key, opts);

  async function alphaOffer() {
    const res = await call("GET /api/negotiations", {
      query: { participantId: "pharmaco", catalog: "true", providerDid: ALPHA_DID },
      as: "researcher",
    });
    expect(res.status).toBe(200);
    const summary = ds.summariseCatalog(res.body);
    const dataset = summary.datasets.find((d) => d.id === "fhir-cohort-bundle")!;
    return { summary, dataset, offerId: dataset.offers[0].id };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "dataspace-local-"));
    db = openDatabase(":memory:");
    await open();
  });

  afterAll(async () => {
    await ds?.close();
    db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    /** the dataspace in use (a new one after open()) */
    get ds() {
      return ds;
    },
    audit,
    pulled,
    open,
    call,
    until: <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000) =>
      until(read, done, ms, STEP_MS / 2),
    alphaOffer,
  };
}

/** the persona as a session user (tests/support/dataspace-call.ts) */
export const user = personaUser;
