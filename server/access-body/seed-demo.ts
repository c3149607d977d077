import { findOrganisation } from "../auth/personas";
import { addDays } from "./calendar";
import { extendClock, newClock, pauseClock, periodEnd, startClock, type ClockData } from "./clock";
import { APPLICATION, DATA_REQUEST, FINDING, INFORMATION_REQUEST, RESULT } from "./machines";
import type {
  ApplicationData,
  DataRequestData,
  FindingData,
  InformationRequestData,
  PermitData,
  ResultData,
} from "./model";
import { PERIODS, type PurposeCode } from "./periods";
import { DEMO_APPLICATIONS } from "./seed-data";
import { at, HDAB, HOLDER, Story, USER, type SeedPlan } from "./seed-story";
import { decided, signed } from "./step";
import type { StoredRecord } from "./store";

/**
 * Our own demonstration cases (step 2 of the seed, server/access-body/seed.ts), dated relative to
 * the day of first use so the work queue shows live clocks: a new application, one under
 * assessment, one waiting for information (clock paused), one extended, one incomplete, two data
 * requests, two findings and two results.
 */
export function seedDemoCases(ctx: {
  w: SeedPlan;
  today: string;
  datasetTitles: Map<string, string>;
  datasetCounts: Map<string, number>;
  known: (ids: string[]) => string[];
  titlesOf: (ids: string[]) => string[];
  nextId: (prefix: string, date: string) => string;
  peekId: (prefix: string, date: string) => string;
  /** the permits seeded from the marketplace, by organisation */
  permitsOf: Map<string, StoredRecord<PermitData>[]>;
}): void {
  const { w, today, datasetTitles, datasetCounts, known, titlesOf, nextId, peekId, permitsOf } = ctx;
  const pharmaco = findOrganisation("pharmaco")!;
  const irs = findOrganisation("irs")!;
  const d = (offset: number) => addDays(today, offset);

  const application = (opts: {
    org: typeof pharmaco;
    title: string;
    summary: string;
    purpose: PurposeCode;
    datasets: string[];
    pseudonymised?: boolean;
    submitted: number;
    build: (s: Story<ApplicationData>, id: string) => { clock: ClockData; completionDueDate?: string | null };
  }) => {
    const datasets = known(opts.datasets);
    if (!datasets.length && datasetTitles.size) return null;
    const submitted = d(opts.submitted);
    const id = nextId("DAA", submitted);
    const s = new Story<ApplicationData>(APPLICATION, id, "submit", at(submitted, 10 * 60), USER);
    const { clock, completionDueDate = null } = opts.build(s, id);
    return w.seed(s, opts.org.displayName, null, {
      title: opts.title,
      summary: opts.summary,
      purpose: opts.purpose,
      datasets: datasets.length ? datasets : opts.datasets,
      datasetTitles: titlesOf(datasets.length ? datasets : opts.datasets),
      organisationDid: opts.org.did,
      submittedBy: "seed",
      submittedAt: at(submitted, 10 * 60).toISOString(),
      receivedAt: at(submitted, 10 * 60).toISOString(),
      receivedDate: submitted,
      pseudonymised: opts.pseudonymised ?? false,
      requestedDurationMonths: 24,
      clock,
      completionDueDate,
      decision: null,
      permitId: null,
      approvalNodeId: null,
      seeded: "demo",
    });
  };

  const informationRequest = (
    appId: string,
    org: string,
    kind: "completeness" | "assessment",
    opened: string,
    dueDate: string,
    questions: string,
  ) => {
    const id = nextId("IR", opened);
    const s = new Story<InformationRequestData>(
      INFORMATION_REQUEST,
      id,
      "open",
      at(opened, 11 * 60),
      HDAB,
      kind === "completeness" ? "completeness" : undefined,
    );
    w.seed(s, org, appId, {
      applicationId: appId,
      kind,
      questions,
      openedAt: at(opened, 11 * 60).toISOString(),
      openedDate: opened,
      openedBy: "seed",
      dueDate,
      answer: null,
      withdrawal: null,
    });
    return id;
  };

  /** marked complete on day `complete`: its decision clock runs from day `submitted` */
  const assessed = (s: Story<ApplicationData>, complete: number, submitted: number) => {
    s.go("markComplete", at(d(complete)), HDAB, `complete; the decision period runs from ${d(submitted)}`);
    return startClock(newClock(), at(d(submitted), 10 * 60));
  };

  application({
    org: pharmaco,
    ...DEMO_APPLICATIONS.respiratory,
    submitted: -2,
    build: () => ({ clock: newClock() }),
  });

  application({
    org: irs,
    ...DEMO_APPLICATIONS.renal,
    submitted: -42,
    build: (s) => ({ clock: assessed(s, -40, -42) }),
  });

  const waiting = application({
    org: pharmaco,
    ...DEMO_APPLICATIONS.antidepressants,
    pseudonymised: true,
    submitted: -57,
    build: (s) => {
      const started = assessed(s, -55, -57);
      const irId = peekId("IR", d(-9));
      s.go("requestInformation", at(d(-9), 11 * 60), HDAB, `${irId}; the decision clock is paused`);
      return { clock: pauseClock(started, at(d(-9), 11 * 60), `information request ${irId}`, irId) };
    },
  });
  if (waiting) {
    informationRequest(
      waiting.id,
      pharmaco.displayName,
      "assessment",
      d(-9),
      d(21),
      "Please send the favourable opinion of the research ethics committee, and explain why the purpose cannot be achieved with anonymised data (Art. 66(3), Art. 68(1)(c)).",
    );
  }

  application({
    org: irs,
    ...DEMO_APPLICATIONS.cardiovascular,
    pseudonymised: true,
    submitted: -88,
    build: (s) => {
      const started = assessed(s, -86, -88);
      const reason =
        "Linkage of data from two data holders in two Member States; the Dutch access body is consulted on the Limburg data";
      s.note("clock.extend", at(d(-12), 15 * 60), HDAB, `+2 month(s): ${reason}`);
      return { clock: extendClock(started, at(d(-12), 15 * 60), 2, reason, "seed") };
    },
  });

  const incomplete = application({
    org: pharmaco,
    ...DEMO_APPLICATIONS.antibiotics,
    submitted: -20,
    build: (s) => {
      s.go(
        "markIncomplete",
        at(d(-18)),
        HDAB,
        "data management plan; safeguards in the secure processing environment",
      );
      return {
        clock: newClock(),
        completionDueDate: periodEnd(d(-18), PERIODS.applicationCompletion.amount, "weeks"),
      };
    },
  });
  if (incomplete) {
    informationRequest(
      incomplete.id,
      pharmaco.displayName,
      "completeness",
      d(-18),
      incomplete.data.completionDueDate ?? d(10),
      `The application is incomplete (${PERIODS.applicationCompletion.article}). Please add:\n- a data management plan\n- a description of the safeguards in the secure processing environment`,
    );
  }

  // data requests (Art. 69)
  const dataRequest = (
    org: typeof pharmaco,
    title: string,
    question: string,
    purpose: PurposeCode,
    datasets: string[],
    submitted: string,
    build: (s: Story<DataRequestData>) => Partial<DataRequestData> = () => ({}),
  ) => {
    const ids = known(datasets);
    if (!ids.length && datasetTitles.size) return;
    const id = nextId("DRQ", submitted);
    const s = new Story<DataRequestData>(DATA_REQUEST, id, "submit", at(submitted, 10 * 60), USER);
    const extra = build(s);
    w.seed(s, org.displayName, null, {
      title,
      question,
      purpose,
      datasets: ids.length ? ids : datasets,
      datasetTitles: titlesOf(ids.length ? ids : datasets),
      submittedBy: "seed",
      receivedAt: at(submitted, 10 * 60).toISOString(),
      receivedDate: submitted,
      dueDate: periodEnd(submitted, PERIODS.dataRequestAnswer.amount, "months"),
      decision: null,
      answer: null,
      seeded: "demo",
      ...extra,
    });
  };
  dataRequest(
    pharmaco,
    "Prevalence of type 2 diabetes by age band",
    "Number of adult patients with type 2 diabetes per ten-year age band, 2019–2025.",
    "scientificResearch",
    ["dataset-lmc-omop"],
    d(-6),
  );
  dataRequest(
    irs,
    "Tendon disorders after fluoroquinolone exposure",
    "How many patients exposed to a fluoroquinolone had a tendon disorder within 90 days, compared with all patients in the cohort?",
    "publicHealth",
    ["dataset-alphaklinik-fluoroquinolone-safety"],
    d(-75),
    (s) => {
      s.go("approve", at(d(-60)), HDAB);
      s.go("answer", at(d(-31)), HDAB);
      const cohort = datasetCounts.get("dataset-alphaklinik-fluoroquinolone-safety") ?? 0;
      return {
        decision: decided("APPROVED", null, at(d(-60)), HDAB),
        answer: {
          summary: "Anonymised count of the cohort; cells below 10 are suppressed.",
          table: cohort >= 10 ? [{ label: "Patients in the cohort", value: cohort }] : [],
          ...signed(at(d(-31)), HDAB),
        },
      };
    },
  );

  // findings
  const irsPermit = (permitsOf.get(irs.displayName) ?? []).find((p) => p.state !== "REVOKED") ?? null;
  const pharmacoPermits = permitsOf.get(pharmaco.displayName) ?? [];
  const finding = (
    org: string,
    subjectRole: "DATA_USER" | "DATA_HOLDER",
    title: string,
    description: string,
    severity: FindingData["severity"],
    relatedPermitId: string | null,
    opened: string,
    build: (s: Story<FindingData>) => Partial<FindingData> = () => ({}),
  ) => {
    const id = nextId("FND", opened);
    const s = new Story<FindingData>(FINDING, id, "open", at(opened, 13 * 60), HDAB);
    const extra = build(s);
    w.seed(s, org, relatedPermitId, {
      subjectRole,
      title,
      description,
      severity,
      article: null,
      relatedPermitId,
      openedAt: at(opened, 13 * 60).toISOString(),
      openedDate: opened,
      openedBy: "seed",
      responseDueDate: addDays(opened, 30),
      response: null,
      closure: null,
      ...extra,
    });
  };
  finding(
    irs.displayName,
    "DATA_USER",
    "Yearly progress report missing",
    `The permit conditions ask for a yearly progress report to the access body; none has been received${irsPermit ? ` for ${irsPermit.id}` : ""}.`,
    "medium",
    irsPermit?.id ?? null,
    d(-12),
  );
  const holderPermit =
    pharmacoPermits.find((p) => p.data.datasets.some((x) => x.startsWith("dataset-alphaklinik"))) ?? null;
  finding(
    "AlphaKlinik Berlin",
    "DATA_HOLDER",
    "Data for an issued permit made available late",
    `The data${holderPermit ? ` for ${holderPermit.id}` : ""} reached the secure processing environment later than agreed with the access body.`,
    "low",
    holderPermit?.id ?? null,
    d(-30),
    (s) => {
      s.go("respond", at(d(-20), 16 * 60), HOLDER);
      return {
        response: {
          text: "A migration of our extraction pipeline delayed the delivery. A monitored nightly extraction job now prevents a repeat.",
          ...signed(at(d(-20), 16 * 60), HOLDER),
        },
      };
    },
  );

  // results (Art. 61(4))
  const result = (
    permit: StoredRecord<PermitData>,
    title: string,
    summary: string,
    completed: string,
    declared: string,
    build: (s: Story<ResultData>) => Partial<ResultData> = () => ({}),
  ) => {
    const id = nextId("RES", declared);
    const s = new Story<ResultData>(RESULT, id, "declare", at(declared, 10 * 60), USER);
    const extra = build(s);
    w.seed(s, permit.organisation, permit.id, {
      title,
      summary,
      permitId: permit.id,
      dataRequestId: null,
      processingCompletedDate: completed,
      publicationDueDate: periodEnd(completed, PERIODS.resultPublication.amount, "months"),
      declaredBy: "seed",
      declaredAt: at(declared, 10 * 60).toISOString(),
      check: null,
      publication: null,
      ...extra,
    });
  };
  const [first, second] = pharmacoPermits;
  if (first) {
    result(
      first,
      "Glycaemic control trajectories in type 2 diabetes",
      "Aggregated HbA1c trajectories by treatment line; tables with at least 10 patients per cell.",
      d(-5),
      d(-3),
    );
  }
  if (second) {
    result(
      second,
      "Drug safety signal analysis: cohort tables",
      "Incidence tables of the cohort, aggregated by quarter; no cell below 10 patients.",
      d(-45),
      d(-40),
      (s) => {
        s.go("release", at(d(-33)), HDAB, "Output check passed: aggregated tables only");
        s.go("publish", at(d(-14)), USER, "https://pharmaco.example/publications/drug-safety-cohort-tables");
        return {
          check: {
            outcome: "RELEASED",
            note: "Output check passed: aggregated tables only",
            at: at(d(-33)).toISOString(),
            by: "seed",
          },
          publication: {
            url: "https://pharmaco.example/publications/drug-safety-cohort-tables",
            at: at(d(-14)).toISOString(),
            date: d(-14),
          },
        };
      },
    );
  }
}
