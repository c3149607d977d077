import { afterEach, describe, expect, it, vi } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { findPersona } from "../auth/personas";
import { personaSessionUser, type SessionUser } from "../auth/user";
import { createAuditView } from "../privacy/audit-view";
import { createPseudonymiser, createRedactor } from "../privacy/redact";
import { inlineBatchWriter } from "./batch-writer";
import { auditFilterFromUrl, auditHandlers, type AuditServices } from "./handlers";
import { createAuditLog, type AuditLog } from "./log";
import { createRetentionService, RETENTION_MAX_DAYS, RETENTION_RULES } from "./retention";

/**
 * GET /api/admin/audit and GET /api/admin/audit/retention answer from answers kept per version of the
 * log (server/http/kept): the same bytes as the answer built afresh, for each reader class and filter;
 * never one class's answer to another; every write, however made, shows in the next read.
 */

const DAY = 86_400_000;
const admin = personaSessionUser(findPersona("admin")!);
const regulator = personaSessionUser(findPersona("regulator")!);
/** an audit reader who also holds records: its redaction depends on the graph's patients */
const holdingRegulator: SessionUser = {
  ...regulator,
  username: "regulator-holder",
  roles: ["HDAB_AUTHORITY", "DATA_HOLDER"],
  organisation: findPersona("clinic")!.organisation,
  participantDid: findPersona("clinic")!.participantDid,
};

describe.each(storeDialects())("the audit routes' kept answers on %s", (dialect) => {
  let store: TestStore;
  afterEach(async () => {
    vi.useRealTimers();
    await store?.close();
  });

  async function setUp() {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel, store.db);
    const psn = createPseudonymiser("a test secret of sixteen+ characters");
    // the graph as the redaction sees it: who holds the patients' records, at a version
    const graph = { at: 1, holder: "alphaklinik-berlin", version: () => graph.at };
    const view = createAuditView({
      audit,
      redactor: async (viewer) =>
        createRedactor(viewer, psn, { holderOf: () => graph.holder, numberOf: () => undefined }),
    });
    const services = {
      audit,
      auditRetention: await createRetentionService(store.rel, audit),
      auditView: { list: vi.fn(view.list) },
      graph,
    } satisfies AuditServices;
    const get = async (route: keyof typeof auditHandlers, path: string, user: SessionUser) => {
      const url = new URL(path, "http://hub.test");
      const res = await auditHandlers[route]({
        request: new Request(url),
        headers: new Headers(),
        head: { method: "GET", url: url.href, headers: new Headers() },
        url,
        query: url.searchParams,
        params: {},
        // the dispatcher hands the handler its declared query parsed (server/http/contract.ts)
        input: { query: Object.fromEntries(url.searchParams), body: undefined },
        user,
        services,
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    const entries = (path: string, user: SessionUser) => get("GET /api/admin/audit", path, user);
    const retention = (path: string, user: SessionUser = admin) =>
      get("GET /api/admin/audit/retention", path, user);
    /** the answer as the handler built it before answers were kept */
    const fresh = async (path: string, user: SessionUser) =>
      JSON.stringify(await view.list(auditFilterFromUrl(new URL(path, "http://hub.test")), user));
    return { audit, services, graph, view, entries, retention, fresh };
  }

  const seed = async (audit: AuditLog) => {
    await audit.append({
      action: "consent.grant",
      actor: "patient1",
      target: "patient-000001",
      kind: "consent",
    });
    await audit.append({ action: "catalogue.create", actor: "clinic", target: "ds-1", kind: "catalogue" });
    await audit.append(
      {
        action: "policy.delete",
        actor: "regulator",
        target: "encounter-000002-01",
        kind: "policy",
        outcome: "failure",
      },
      { at: new Date("2030-02-01T00:00:00Z") },
    );
  };

  it("answers the bytes of the answer built afresh, for the operator and the access body, per filter", async () => {
    const { audit, services, entries, fresh } = await setUp();
    await seed(audit);
    const paths = [
      "/api/admin/audit",
      "/api/admin/audit?limit=2",
      "/api/admin/audit?kind=consent",
      "/api/admin/audit?q=PATIENT",
      "/api/admin/audit?outcome=failure",
      "/api/admin/audit?before=3&limit=1",
      "/api/admin/audit?since=2030-01-01&until=2031-01-01",
      "/api/admin/audit?actor=regulator&action=policy.delete",
    ];
    for (const user of [admin, regulator])
      for (const path of paths) {
        const expected = await fresh(path, user);
        expect(await entries(path, user), `${user.username} ${path}`).toBe(expected);
        // the second time from the kept answer: the same bytes, the log not read again
        const reads = services.auditView.list.mock.calls.length;
        expect(await entries(path, user), `${user.username} ${path}, kept`).toBe(expected);
        expect(services.auditView.list.mock.calls.length).toBe(reads);
      }
    // the access body's entries are pseudonymised and without hashes; the operator's are as written
    const asAdmin = JSON.parse(await entries("/api/admin/audit?kind=consent", admin));
    const asRegulator = JSON.parse(await entries("/api/admin/audit?kind=consent", regulator));
    expect(asAdmin[0]).toMatchObject({
      target: "patient-000001",
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(asRegulator[0]).toMatchObject({ target: expect.stringMatching(/^patient-x/), hash: "" });
  });

  it("never answers one reader class with another's: the operator first, then the access body, and back", async () => {
    const { audit, entries, fresh } = await setUp();
    await seed(audit);
    const path = "/api/admin/audit?limit=5";
    const forAdmin = await entries(path, admin);
    const forRegulator = await entries(path, regulator);
    expect(forRegulator).not.toBe(forAdmin);
    expect(forRegulator).toBe(await fresh(path, regulator));
    expect(forRegulator).not.toContain("patient-000001");
    expect(await entries(path, admin)).toBe(forAdmin);
  });

  it("answers a reader who holds records as the graph's version holds them", async () => {
    const { audit, graph, entries, fresh } = await setUp();
    await seed(audit);
    const path = "/api/admin/audit?kind=consent";
    const held = await entries(path, holdingRegulator);
    expect(held).toBe(await fresh(path, holdingRegulator));
    expect(held).toContain('"target":"patient-000001"'); // the clinic's record: with its identity
    // the record moves to another holder in the graph: pseudonymised from the next read on
    graph.holder = "medreg";
    graph.at++;
    const moved = await entries(path, holdingRegulator);
    expect(moved).toBe(await fresh(path, holdingRegulator));
    expect(moved).not.toContain("patient-000001");
  });

  it("keeps the answers of readers apart, however alike their roles", async () => {
    const { audit, entries, fresh } = await setUp();
    await seed(audit);
    const path = "/api/admin/audit?kind=consent";
    await entries(path, holdingRegulator);
    // the same roles, another organisation: its own answer
    const otherHolder = {
      ...holdingRegulator,
      organisation: findPersona("lmc")!.organisation,
      participantDid: findPersona("lmc")!.participantDid,
    };
    expect(await entries(path, otherHolder)).toBe(await fresh(path, otherHolder));
    expect(await entries(path, otherHolder)).not.toContain("patient-000001");
  });

  it("shows every write in the next read: appends alone and in a transaction, batches, retention, purges, another instance", async () => {
    const { audit, services, entries, retention, fresh } = await setUp();
    await seed(audit);
    const path = "/api/admin/audit?limit=3";
    const newest = async () => JSON.parse(await entries(path, admin))[0] as { target: string; seq: number };
    const check = async (target: string) => {
      expect((await newest()).target).toBe(target);
      expect(await entries(path, regulator)).toBe(await fresh(path, regulator));
      expect(await entries(path, admin)).toBe(await fresh(path, admin));
    };
    await newest(); // kept
    await audit.append({ action: "x", actor: "admin", target: "alone", kind: "policy" });
    await check("alone");
    await store.rel.tx(async (tx) => {
      await audit.append({ action: "x", actor: "admin", target: "in-tx-1", kind: "policy" }, { tx });
      await audit.append({ action: "x", actor: "admin", target: "in-tx-2", kind: "policy" }, { tx });
    });
    await check("in-tx-2");
    // on the store itself, outside a transaction: each append commits, and is told, alone
    for (const target of ["on-store-1", "on-store-2"]) {
      await audit.append({ action: "x", actor: "admin", target, kind: "policy" }, { tx: store.rel.db });
      await check(target);
    }
    await inlineBatchWriter(audit, store.rel).write([
      {
        input: { action: "federated.query", actor: "researcher", target: "batch-1", kind: "insight" },
        at: new Date(),
      },
      {
        input: { action: "federated.query", actor: "researcher", target: "batch-2", kind: "insight" },
        at: new Date(),
      },
    ]);
    await check("batch-2");
    if (audit.embedded) {
      // the embedded graph store's way: inside a better-sqlite3 transaction of its own
      store.db!.transaction(() =>
        audit.appendSync({ action: "graph.mutate", actor: "clinic", target: "sync", kind: "graph" }),
      )();
      await check("sync");
    }
    // retention: a period set shows in both routes at once
    JSON.parse(await retention("/api/admin/audit/retention?kind=consent"));
    await services.auditRetention.set("consent", 2000, "admin");
    await check("consent");
    expect(JSON.parse(await retention("/api/admin/audit/retention?kind=consent"))).toMatchObject({
      days: 2000,
    });
    // a purge removes entries: they are gone from the next read
    const old = await audit.append(
      { action: "old", actor: "a", target: "old-one", kind: "graph" },
      { at: new Date("2020-01-01T00:00:00Z") },
    );
    expect(JSON.parse(await entries("/api/admin/audit?kind=graph", admin))[0].seq).toBe(old.seq);
    // the log's own purge (the retention service's also records itself: a purge alone must show too)
    const older = await audit.append(
      { action: "old", actor: "a", target: "older-one", kind: "nlq" },
      { at: new Date("2020-01-01T00:00:00Z") },
    );
    expect(JSON.parse(await entries("/api/admin/audit?kind=nlq", admin))[0].seq).toBe(older.seq);
    expect(await audit.purge("nlq", "2021-01-01T00:00:00.000Z")).toBe(1);
    expect(await entries("/api/admin/audit?kind=nlq", admin)).toBe("[]");
    const purged = await services.auditRetention.purge("admin");
    expect(purged.purged.graph).toBe(1);
    expect(await entries("/api/admin/audit?kind=graph", admin)).not.toContain("old-one");
    await check("graph: 1");
    // another instance on the same store (PostgreSQL: a pool of its own, told by the change feed)
    const other = await createAuditLog(await store.another());
    await other.append({ action: "x", actor: "admin", target: "elsewhere", kind: "policy" });
    await check("elsewhere");
  });

  it("keys the retention answer by the kind asked for, and answers what the service lists", async () => {
    const { audit, services, retention } = await setUp();
    await seed(audit);
    const all = async () =>
      JSON.stringify({
        kinds: await services.auditRetention.list(),
        rules: RETENTION_RULES,
        maximumDays: RETENTION_MAX_DAYS,
        lastPurge: await services.auditRetention.lastPurge(),
      });
    expect(await retention("/api/admin/audit/retention")).toBe(await all());
    expect(await retention("/api/admin/audit/retention", regulator)).toBe(await all());
    for (const kind of ["consent", "policy", "never-seen"])
      expect(await retention(`/api/admin/audit/retention?kind=${kind}`)).toBe(
        JSON.stringify((await services.auditRetention.answer(kind)).value),
      );
    expect(await retention("/api/admin/audit/retention")).toBe(await all());
    await audit.append({ action: "x", actor: "admin", target: "t", kind: "consent" });
    expect(JSON.parse(await retention("/api/admin/audit/retention?kind=consent")).entries).toBe(2);
    expect(await retention("/api/admin/audit/retention")).toBe(await all());
    // the last purge shows at once
    await services.auditRetention.purge("admin");
    expect(JSON.parse(await retention("/api/admin/audit/retention")).lastPurge).toBe(
      await services.auditRetention.lastPurge(),
    );
  });

  it("counts an entry as due once its period has passed, with no write in between", async () => {
    const { audit, retention } = await setUp();
    const at = new Date("2030-01-01T00:00:00.000Z");
    await audit.append({ action: "x", actor: "a", target: "t", kind: "dataspace" }, { at });
    const days = 366; // the floor of dataspace entries
    vi.useFakeTimers({ toFake: ["Date"] });
    const due = async () => JSON.parse(await retention("/api/admin/audit/retention?kind=dataspace")).due;
    vi.setSystemTime(at.getTime() + days * DAY - 60_000);
    expect(await due()).toBe(0);
    vi.setSystemTime(at.getTime() + days * DAY);
    expect(await due()).toBe(0);
    vi.setSystemTime(at.getTime() + days * DAY + 1);
    expect(await due()).toBe(1);
  });
});
