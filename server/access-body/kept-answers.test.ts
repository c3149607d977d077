import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import type { SessionUser } from "../auth/user";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { openDatabase } from "../storage/database";
import type { Relational } from "../storage/relational";
import { createAccessBodyWithCompliance, type AccessBodyWithCompliance } from "../compliance";
import { admin, marketplace, node, regulator, researcher, setupWith, userOf } from "./test-support";

/**
 * The read routes' kept answers (kept.ts): GET /api/permits, /api/information, /api/activity-report,
 * /api/compliance and /api/compliance/applications answer text kept per version of their inputs. Each
 * check compares it, byte for byte, with the answer built afresh (the uncached methods the views use)
 * at the same time, for several callers, after writes, after a graph write and on the next day.
 */

const clinic = userOf("clinic");
// a data user of another organisation than the researcher's (Institut de Recherche Santé)
const irs: SessionUser = {
  ...researcher,
  sub: "irs",
  username: "irs",
  organisation: "Institut de Recherche Santé",
  participantDid: "did:web:irs.fr:research",
};
// the researcher's organisation known by DID only, and the same name without the DID: different answers
const byDidOnly: SessionUser = { ...researcher, organisation: "Somebody else" };
const byNameless: SessionUser = { ...researcher, organisation: "Somebody else", participantDid: undefined };
const CALLERS = [regulator, admin, researcher, irs, clinic, byDidOnly, byNameless];
const PERIODS = [
  { from: "2025-11-16", to: "2026-11-16" },
  { from: "2020-01-01", to: "2030-12-31" },
];
const PAGES = [{}, { state: "RECEIVED" }, { limit: 2, offset: 1 }];

/** every kept answer equals the one built afresh now, for every caller */
async function expectSameAsFresh(ab: AccessBodyWithCompliance) {
  expect(String(await ab.registerBody())).toBe(JSON.stringify(await ab.register()));
  expect(String(await ab.informationBody())).toBe(JSON.stringify(await ab.information()));
  for (const p of PERIODS)
    expect(String(await ab.activityReportBody(p))).toBe(JSON.stringify(await ab.activityReport(p)));
  for (const user of CALLERS) {
    expect(String(await ab.complianceBody(user)), user.username).toBe(
      JSON.stringify(await ab.compliance(user)),
    );
    for (const state of [undefined, "OPEN", "PENDING"]) {
      const f = state ? { state } : {};
      const at = `${user.username} ${JSON.stringify(f)}`;
      expect((await ab.listFindingsBody(user, f)).toString(), at).toBe(
        JSON.stringify(await ab.listFindings(user, f)),
      );
      expect((await ab.listResultsBody(user, f)).toString(), at).toBe(
        JSON.stringify(await ab.listResults(user, f)),
      );
      expect((await ab.listDataRequestsBody(user, f)).toString(), at).toBe(
        JSON.stringify(await ab.listDataRequests(user, f)),
      );
      expect((await ab.listInformationRequestsBody(user, f)).toString(), at).toBe(
        JSON.stringify(await ab.listInformationRequests(user, f)),
      );
    }
    if (user === clinic) continue; // the route's roles: HDAB_AUTHORITY, CONNECTOR_ADMIN, DATA_USER
    for (const f of PAGES)
      expect(
        (await ab.listApplicationsBody(user, f)).toString(),
        `${user.username} ${JSON.stringify(f)}`,
      ).toBe(JSON.stringify(await ab.listApplications(user, f)));
  }
}

const apply = (ab: AccessBodyWithCompliance, title: string) =>
  ab.submitApplication(
    {
      title,
      summary: "Readmissions after pneumonia",
      purpose: "scientificResearch",
      datasets: ["dataset-alphaklinik-respiratory"],
    },
    researcher,
  );

describe("the access body's kept answers", () => {
  it("are the answers built afresh, for every caller, and are kept", async () => {
    const { ab, setNow } = await setupWith(createAccessBodyWithCompliance);
    await expectSameAsFresh(ab);
    // asked again: the same bytes (from the kept text), the time of each read
    await expectSameAsFresh(ab);
    setNow("2026-11-16T17:45:12.345+01:00");
    expect(String(await ab.registerBody())).toContain('"generatedAt":"2026-11-16T16:45:12.345Z"');
    await expectSameAsFresh(ab);
    const listed = await ab.listApplicationsBody(regulator);
    expect(await ab.listApplicationsBody(admin)).toBe(listed);
  });

  it("keep each caller's answer to that caller", async () => {
    const { ab } = await setupWith(createAccessBodyWithCompliance);
    // the overseer first: the next callers must not be answered from its kept answer
    const all = String(await ab.complianceBody(regulator));
    const own = String(await ab.complianceBody(researcher));
    expect(own).not.toBe(all);
    expect(own).toBe(JSON.stringify(await ab.compliance(researcher)));
    expect(String(await ab.complianceBody(byNameless))).toBe(JSON.stringify(await ab.compliance(byNameless)));
    const didOnly = String(await ab.complianceBody(byDidOnly));
    expect(didOnly).not.toBe(String(await ab.complianceBody(byNameless)));
    expect(didOnly).toBe(JSON.stringify(await ab.compliance(byDidOnly)));
    const everyApplication = (await ab.listApplicationsBody(regulator)).toString();
    const pharmaco = (await ab.listApplicationsBody(researcher)).toString();
    const institut = (await ab.listApplicationsBody(irs)).toString();
    expect(new Set([everyApplication, pharmaco, institut]).size).toBe(3);
    expect(
      JSON.parse(pharmaco).every((a: { organisation: string }) => a.organisation === researcher.organisation),
    ).toBe(true);
    expect(institut).toBe(JSON.stringify(await ab.listApplications(irs)));
  });

  it("show a write through the service at the next read", async () => {
    const { ab } = await setupWith(createAccessBodyWithCompliance);
    await expectSameAsFresh(ab);
    const app = await apply(ab, "Kept answers: submitted");
    expect(String(await ab.registerBody())).toContain(app.id);
    expect((await ab.listApplicationsBody(researcher)).toString()).toContain(app.id);
    expect((await ab.listApplicationsBody(irs)).toString()).not.toContain(app.id);
    expect(String(await ab.complianceBody(regulator))).toContain(app.id);
    await expectSameAsFresh(ab);

    await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    const permit = await ab.issuePermit(
      { applicationId: app.id, durationMonths: 6, conditions: ["c"], secureProcessingEnvironment: "SPE" },
      regulator,
    );
    expect(String(await ab.informationBody())).toContain(permit.id);
    expect(String(await ab.activityReportBody(PERIODS[0]))).toContain(app.id);
    await expectSameAsFresh(ab);

    // the supervision lists: a finding to the researcher's organisation, seen by it and the overseer only
    const before = (await ab.listFindingsBody(researcher)).toString();
    const finding = await ab.openFinding(
      {
        organisation: researcher.organisation,
        subjectRole: "DATA_USER",
        title: "Kept answers: a finding",
        description: "Shown at the next read",
        relatedPermitId: permit.id,
      },
      regulator,
    );
    expect(before).not.toContain(finding.id);
    expect((await ab.listFindingsBody(researcher)).toString()).toContain(finding.id);
    expect((await ab.listFindingsBody(regulator, { state: "OPEN" })).toString()).toContain(finding.id);
    expect((await ab.listFindingsBody(irs)).toString()).not.toContain(finding.id);
    await expectSameAsFresh(ab);
  });

  it("show a graph write at the next read", async () => {
    const { ab, graph } = await setupWith(createAccessBodyWithCompliance);
    await expectSameAsFresh(ab);
    await graph.mutate(
      [
        { op: "updateNode", id: "contract-0002", properties: { status: "active" } },
        {
          op: "createNode",
          node: node("dataset-kept", "HealthDataset", { title: "Kept", publisher: "Kept Holder" }),
        },
      ],
      { action: "test", actor: "test", target: "contract-0002", kind: "graph" },
    );
    expect(String(await ab.complianceBody(regulator))).toContain(
      "Contract contract-0002 is usable but application",
    );
    expect(String(await ab.informationBody())).toContain("6 datasets of 3 data holders");
    expect(String(await ab.activityReportBody(PERIODS[0]))).toContain('"contractsByStatus":{"active":2');
    await expectSameAsFresh(ab);
  });

  it("count the days again on the next Berlin day", async () => {
    const { ab, setNow } = await setupWith(createAccessBodyWithCompliance);
    const app = await apply(ab, "Kept answers: a day later");
    await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    await expectSameAsFresh(ab);
    const daysLeft = async () =>
      JSON.parse((await ab.listApplicationsBody(regulator)).toString()).find(
        (a: { id: string }) => a.id === app.id,
      ).clockView.daysLeft as number;
    setNow("2026-11-16T23:59:00+01:00");
    const before = await daysLeft();
    expect(String(await ab.registerBody())).toContain('"asOf":"2026-11-16"');
    setNow("2026-11-17T00:01:00+01:00");
    expect(await daysLeft()).toBe(before - 1);
    expect(String(await ab.registerBody())).toContain('"asOf":"2026-11-17"');
    await expectSameAsFresh(ab);
    // three months on: the clock has run out (overdue in the report, the compliance chain and the list)
    const period = { from: "2026-03-01", to: "2027-03-01" };
    const overdue = async () =>
      JSON.parse(String(await ab.activityReportBody(period))).applications.overdueNow;
    expect(await overdue()).not.toContain(app.id);
    setNow("2027-03-01T09:00:00+01:00");
    expect(await overdue()).toContain(app.id);
    await expectSameAsFresh(ab);
  });
});

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function accessBodyOn(rel: Relational, now: () => Date, seed: boolean) {
  const audit = await createAuditLog(rel);
  const graph = createSqliteGraphStore(openDatabase(":memory:"), audit);
  const m = marketplace();
  await graph.importBatch(m.nodes, m.edges);
  return createAccessBodyWithCompliance({ rel, audit, graph, now, seed });
}

describe.each(storeDialects())("the access body's kept answers on a shared store (%s)", (dialect) => {
  it("show another instance's acknowledged write at the next read", async () => {
    opened = await openTestStore(dialect);
    const now = () => new Date("2026-11-16T09:00:00+01:00");
    const ab = await accessBodyOn(opened.rel, now, true);
    await expectSameAsFresh(ab);
    const other = await accessBodyOn(await opened.another(), now, false);
    const app = await apply(other, "Kept answers: written elsewhere");
    // at once: on PostgreSQL the version row is read, the NOTIFY may not have arrived yet
    expect(String(await ab.registerBody())).toContain(app.id);
    expect((await ab.listApplicationsBody(regulator)).toString()).toContain(app.id);
    expect(String(await ab.complianceBody(admin))).toContain(app.id);
    expect(String(await ab.activityReportBody(PERIODS[0]))).toContain('"received":');
    await expectSameAsFresh(ab);
  });
});
