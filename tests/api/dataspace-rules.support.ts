import { afterAll, beforeAll, beforeEach } from "vitest";
import { standInPermits } from "../support/permits";
import { loadConfig } from "../../server/config";
import { callDataspace, personaUser } from "../support/dataspace-call";
import { createDataspace, type Dataspace, type DataspaceDeps } from "../../server/dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

/** Helpers and the harness shared by the test files split from dataspace-rules.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type JsonBody = any;

/**
 * The rules of spec section 4 (Negotiations, Transfers, Assets, Participants) checked black-box
 * against an upstream double that records what the hub sends: every 400 text, the counter-party
 * address normalisation, the exact ContractRequest / TransferRequest / Asset bodies, the
 * demonstration transfer rule, merge and de-duplication, display-name resolution, the slug rule,
 * and the client-credentials token.
 */

export const CTX = "https://w3id.org/edc/connector/management/v2";

export const ALPHA_DID = "did:web:alpha-klinik.de:participant";

export const MGMT = "/mgmt/v4alpha/participants";

/**
 * The per-file state of the split dataspace-rules tests: an upstream double on 127.0.0.1 (reset
 * before each test) and `dataspace(env, deps)`, which builds dataspace clients against it (closed with
 * their stores after the file). Registers its own beforeAll/afterAll/beforeEach.
 */
export function dataspaceRulesHarness() {
  let double: UpstreamDouble;
  const opened: { ds: Dataspace; db: Db }[] = [];

  async function dataspace(
    env: Record<string, string> = {},
    deps: Partial<DataspaceDeps> = {},
  ): Promise<Dataspace> {
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: ":memory:",
      PUBLIC_URL: "http://127.0.0.1:3999",
      CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
      CONNECTOR_API_VERSION: "v4alpha",
      TENANT_MANAGER_URL: `${double.url}/tm`,
      UPSTREAM_TIMEOUT_MS: "1000",
      ...env,
    });
    const db = openDatabase(":memory:");
    const ds = await createDataspace(config, { db, permits: standInPermits, ...deps });
    opened.push({ ds, db });
    return ds;
  }

  beforeAll(async () => {
    double = await startUpstreamDouble();
  });

  afterAll(async () => {
    for (const { ds, db } of opened) {
      await ds.close();
      db.close();
    }
    await double?.close();
  });

  beforeEach(() => double.reset());

  return {
    /** the upstream double (started in beforeAll) */
    get double() {
      return double;
    },
    dataspace,
  };
}

/** the persona as a session user, and one handler call (tests/support/dataspace-call.ts) */
export const user = personaUser;
export const call = callDataspace;
