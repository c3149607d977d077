import { findOrganisation } from "../auth/personas";
import type { GraphNode } from "../graph";
import { addDays, addMonths } from "./calendar";
import { newClock, startClock, stopClock, type ClockData } from "./clock";
import { APPLICATION, PERMIT } from "./machines";
import type { ApplicationData, PermitData } from "./model";
import { purposeCode, type PurposeCode } from "./periods";
import { PURPOSE_TITLES, REVOCATION_REASON, SPE, STANDARD_CONDITIONS } from "./seed-data";
import { at, HDAB, Story, USER, type SeedPlan } from "./seed-story";
import { decided } from "./step";
import type { StoredRecord } from "./store";

/**
 * Step 1 of the seed: every HDABApproval node of the marketplace (layer l1) becomes the application
 * it decided and, when it was granted or revoked, the data permit it records — with the approval's
 * own dates (the graph dates them from the day of seeding), applicant, purpose and the datasets of
 * the contracts it approves. A PENDING approval becomes an application still under assessment.
 */
export function seedMarketplace(ctx: {
  w: SeedPlan;
  approvals: GraphNode[];
  approvalContracts: Map<string, GraphNode[]>;
  known: (ids: string[]) => string[];
  titlesOf: (ids: string[]) => string[];
  nextId: (prefix: string, date: string) => string;
  today: string;
  addPermit: (p: StoredRecord<PermitData>) => void;
}): void {
  const { w, approvals, approvalContracts, known, titlesOf, nextId, today, addPermit } = ctx;
  for (const a of approvals) {
    const p = a.properties;
    const org = findOrganisation(String(p.applicant ?? ""));
    const appDate = typeof p.applicationDate === "string" ? p.applicationDate : null;
    if (!org || !appDate) continue;
    const contracts = approvalContracts.get(a.id) ?? [];
    const datasets = known([
      ...new Set(
        contracts.map((c) => `dataset-${String(c.properties.assetId ?? "").replace(/^asset-/, "")}`),
      ),
    ]);
    const purpose: PurposeCode = purposeCode(String(p.purpose ?? "")) ?? "scientificResearch";
    const status = String(p.status ?? "PENDING");
    const decisionDate = typeof p.decisionDate === "string" ? p.decisionDate : null;
    const appId = nextId("DAA", appDate);
    const recorded = `recorded in marketplace approval ${a.id}`;
    const story = new Story<ApplicationData>(APPLICATION, appId, "submit", at(appDate), USER, recorded);
    let clock: ClockData = startClock(newClock(), at(appDate));
    story.go(
      "markComplete",
      at(addDays(appDate, 1)),
      HDAB,
      `complete; the decision period runs from ${appDate}`,
    );
    let permit: StoredRecord<PermitData> | null = null;
    let decision: ApplicationData["decision"] = null;
    if ((status === "GRANTED" || status === "REVOKED") && decisionDate) {
      const permitId =
        typeof p.permitNumber === "string" ? p.permitNumber : nextId("MEDREG-DP", decisionDate);
      const decidedAt = at(decisionDate, 14 * 60);
      clock = stopClock(clock, decidedAt);
      story.go("grant", decidedAt, HDAB, `data permit ${permitId}`);
      decision = decided("GRANTED", null, decidedAt, HDAB);
      const validUntil =
        typeof p.validUntil === "string" ? p.validUntil : addDays(addMonths(decisionDate, 24), -1);
      const ps = new Story<PermitData>(PERMIT, permitId, "issue", decidedAt, HDAB, recorded);
      let revocation: PermitData["revocation"] = null;
      if (status === "REVOKED") {
        // the marketplace records that the permit was revoked; the demonstration dates it 60 days after issue
        const revokedDate = [addDays(decisionDate, 60), today].sort()[0];
        const reason = REVOCATION_REASON;
        ps.go("revoke", at(revokedDate, 11 * 60), HDAB, reason);
        revocation = { at: at(revokedDate, 11 * 60).toISOString(), date: revokedDate, reason, by: "seed" };
      }
      const months = Math.max(
        1,
        Math.round((Date.parse(validUntil) - Date.parse(decisionDate)) / (30.44 * 86_400_000)),
      );
      permit = w.seed(ps, org.displayName, appId, {
        applicationId: appId,
        datasets,
        datasetTitles: titlesOf(datasets),
        purpose,
        organisationDid: org.did,
        issuedAt: decidedAt.toISOString(),
        issuedDate: decisionDate,
        validFrom: decisionDate,
        validUntil,
        durationMonths: months,
        conditions: STANDARD_CONDITIONS,
        secureProcessingEnvironment:
          typeof p.processingEnvironment === "string" ? p.processingEnvironment : SPE,
        pseudonymised: true,
        issuedBy: "seed",
        approvalNodeId: a.id,
        contractIds: contracts.map((c) => c.id),
        revocation,
        expiredAt: null,
        seeded: "marketplace",
      });
      addPermit(permit);
    }
    w.seed(story, org.displayName, null, {
      // the approval's own title (the programme patients see), else one from its purpose and datasets
      title:
        typeof p.title === "string"
          ? p.title
          : `${PURPOSE_TITLES[purpose]}: ${titlesOf(datasets).join("; ") || "marketplace data product"}`,
      summary: `Application recorded in the marketplace approval ${a.id} (${String(p.legalBasis ?? "EHDS Art. 68")}).`,
      purpose,
      datasets,
      datasetTitles: titlesOf(datasets),
      organisationDid: org.did,
      submittedBy: "seed",
      submittedAt: at(appDate).toISOString(),
      receivedAt: at(appDate).toISOString(),
      receivedDate: appDate,
      pseudonymised: true,
      requestedDurationMonths: 24,
      clock,
      completionDueDate: null,
      decision,
      permitId: permit?.id ?? null,
      approvalNodeId: a.id,
      seeded: "marketplace",
    });
  }
}
