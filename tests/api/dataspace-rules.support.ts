import { afterAll, beforeAll, beforeEach } from "vitest";
import { findPersona } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { dataspaceHandlers } from "../../server/dataspace/handlers";
import { errorResponse } from "../../server/http/errors";
import type { HandlerContext } from "../../server/http/handler";
import type { Services } from "../../server/services";
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

export const CTX = "https://w3id.org/edc/connector/management/v0.0.1";

export const ALPHA_DID = "did:web:alpha-klinik.de:participant";

export const MGMT = "/mgmt/v4alpha/participants";

export function user(username: string): SessionUser {
  const p = findPersona(username)!;
  return {
    sub: username,
    username,
    name: p.name,
    roles: p.roles,
    organisation: p.organisation,
    participantDid: p.participantDid,
  };
}

export async function call(
  ds: Dataspace,
  key: string,
  opts: {
    query?: Record<string, string>;
    body?: unknown;
    raw?: string;
    params?: Record<string, string>;
    as?: string;
  } = {},
) {
  const [method, route] = key.split(" ");
  const url = new URL(
    `http://hub.test${route.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(opts.params?.[n] ?? n))}`,
  );
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const hasBody = opts.body !== undefined || opts.raw !== undefined;
  const request = new Request(url, {
    method,
    headers: hasBody ? { "content-type": "application/json" } : {},
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const ctx: HandlerContext<Services> = {
    request,
    url,
    params: opts.params ?? {},
    user: user(opts.as ?? "admin"),
    services: { dataspace: ds } as unknown as Services,
  };
  let res: Response;
  try {
    res = await dataspaceHandlers[key](ctx);
  } catch (e) {
    res = errorResponse(e);
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The per-file state of the split dataspace-rules tests: an upstream double on 127.0.0.1 (reset
 * before each test) and `dataspace(env)`, which builds dataspace clients against it (closed with
 * their stores after the file). Registers its own beforeAll/afterAll/beforeEach.
 */
export function dataspaceRulesHarness() {
  let double: UpstreamDouble;
  const opened: { ds: Dataspace; db: Db }[] = [];

  async function dataspace(env: Record<string, string> = {}): Promise<Dataspace> {
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: ":memory:",
      PUBLIC_URL: "http://127.0.0.1:3999",
      CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
      TENANT_MANAGER_URL: `${double.url}/tm`,
      UPSTREAM_TIMEOUT_MS: "1000",
      ...env,
    });
    const db = openDatabase(":memory:");
    const ds = await createDataspace(config, { db });
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
