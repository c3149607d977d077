import { z } from "zod";
import type { GraphStore } from "../graph";
import { berlinDate } from "./calendar";
import type { ApplicationData, DataRequestData, PermitData, ResultData } from "./model";
import { COUNTING_RULES, PERIOD_LIST, PURPOSES, purposeLabel } from "./periods";
import { ACCESS_BODY } from "./actors";
import type { RecordStore, StoredRecord } from "./store";

/**
 * What the access body publishes: the register of applications, requests and permits (Art. 57(1)(j))
 * and the public information on secondary use (Art. 58(1)).
 *
 * Nothing personal is published: organisations, datasets, purposes, dates and decisions only. Not
 * published: who submitted or decided (usernames, names, e-mail addresses), the description of the
 * intended use, information requests and their answers, the questions of data requests. Every
 * field below is picked explicitly; nothing is spread from a record.
 */

/** GET /api/permits: the public register, every field picked explicitly, nothing personal */
const nullableText = z.string().nullable();
const registered = {
  id: z.string(),
  organisation: z.string(),
  datasets: z.array(z.string()).describe("the datasets' titles"),
  purpose: z.string(),
  purposeLabel: z.string(),
  state: z.string(),
};
export const publicRegister = z.object({
  accessBody: z.object({ name: z.string(), did: z.string() }),
  legalBasis: z.string(),
  generatedAt: z.string().describe("ISO 8601 time"),
  asOf: z.string().describe("the day in Berlin, YYYY-MM-DD"),
  permits: z.array(
    z.object({
      ...registered,
      applicationId: z.string(),
      issuedDate: z.string(),
      validFrom: z.string(),
      validUntil: z.string(),
      durationMonths: z.number().int(),
      secureProcessingEnvironment: z.string(),
      revokedDate: nullableText,
      revocationReason: nullableText,
    }),
  ),
  applications: z.array(
    z.object({
      ...registered,
      title: z.string(),
      receivedDate: z.string(),
      decision: z.enum(["GRANTED", "REFUSED", "WITHDRAWN"]).nullable(),
      decisionDate: nullableText,
      refusalReasons: nullableText.describe("the justification of a refusal (Art. 57(1)(j)(iii))"),
      permitId: nullableText,
    }),
  ),
  dataRequests: z.array(
    z.object({
      ...registered,
      title: z.string(),
      receivedDate: z.string(),
      decisionDate: nullableText,
      refusalReasons: nullableText,
    }),
  ),
});
type Register = z.infer<typeof publicRegister>;

/** a record's `registered` fields, each picked by name */
const registeredOf = (r: StoredRecord<{ datasetTitles: string[]; purpose: string }>) => ({
  id: r.id,
  organisation: r.organisation,
  datasets: r.data.datasetTitles,
  purpose: r.data.purpose,
  purposeLabel: purposeLabel(r.data.purpose),
  state: r.state,
});

export async function register(store: RecordStore, now: Date): Promise<Register> {
  const applications: Register["applications"] = (await store.list<ApplicationData>("application")).map(
    (r) => ({
      ...registeredOf(r),
      title: r.data.title,
      receivedDate: r.data.receivedDate,
      decision: r.data.decision?.outcome ?? null,
      decisionDate: r.data.decision?.date ?? null,
      refusalReasons: r.data.decision?.outcome === "REFUSED" ? r.data.decision.reasons : null,
      permitId: r.data.permitId,
    }),
  );
  const permits: Register["permits"] = (await store.list<PermitData>("permit")).map((r) => ({
    ...registeredOf(r),
    applicationId: r.data.applicationId,
    issuedDate: r.data.issuedDate,
    validFrom: r.data.validFrom,
    validUntil: r.data.validUntil,
    durationMonths: r.data.durationMonths,
    secureProcessingEnvironment: r.data.secureProcessingEnvironment,
    revokedDate: r.data.revocation?.date ?? null,
    revocationReason: r.data.revocation?.reason ?? null,
  }));
  const dataRequests: Register["dataRequests"] = (await store.list<DataRequestData>("dataRequest")).map(
    (r) => ({
      ...registeredOf(r),
      title: r.data.title,
      receivedDate: r.data.receivedDate,
      decisionDate: r.data.decision?.date ?? r.data.answer?.date ?? null,
      refusalReasons: r.data.decision?.outcome === "REFUSED" ? r.data.decision.reasons : null,
    }),
  );
  const newestFirst = <T extends { id: string }>(xs: T[], key: (x: T) => string) =>
    xs.sort((a, b) => key(b).localeCompare(key(a)) || b.id.localeCompare(a.id));
  return {
    accessBody: { name: ACCESS_BODY.name, did: ACCESS_BODY.did },
    legalBasis:
      "Regulation (EU) 2025/327 (EHDS) Art. 57(1)(j): applications and requests are published on receipt; permits, approved requests and refusals with their justification on decision.",
    generatedAt: now.toISOString(),
    asOf: berlinDate(now),
    permits: newestFirst(permits, (p) => p.issuedDate),
    applications: newestFirst(applications, (a) => a.receivedDate),
    dataRequests: newestFirst(dataRequests, (d) => d.receivedDate),
  };
}

const texts = z.array(z.string());
const count = z.number().int();
/** GET /api/information: the public information of Art. 58(1) */
export const publicInformation = z.object({
  accessBody: z.object({
    name: z.string(),
    did: z.string(),
    country: z.string(),
    contact: z.string(),
    role: z.string(),
  }),
  generatedAt: z.string().describe("ISO 8601 time"),
  legalBasis: texts.describe("Art. 58(1)(a)"),
  howToApply: z.array(z.object({ step: count, title: z.string(), detail: z.string() })),
  purposes: z
    .array(
      z.object({
        code: z.string(),
        point: z.string(),
        label: z.string(),
        description: z.string(),
        permitsIssued: count,
      }),
    )
    .describe("the purposes of Art. 53(1)"),
  conditions: texts,
  technicalMeasures: texts.describe("Art. 58(1)(b)"),
  rightsOfNaturalPersons: texts.describe("Art. 58(1)(c), (d)"),
  statutoryPeriods: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      amount: count,
      unit: z.string(),
      article: z.string().describe('the article that sets it, e.g. "Art. 68(4)"'),
      rule: z.string().describe("what the article says, in our words"),
      verification: z.enum(["verified", "secondary", "unverified"]),
    }),
  ),
  countingRules: z.string(),
  permitsIssued: z
    .object({
      total: count,
      active: count,
      revoked: count,
      expired: count,
      byPurpose: z.record(z.string(), count),
      list: z.array(
        z.object({
          id: z.string(),
          organisation: z.string(),
          datasets: texts,
          purpose: z.string(),
          purposeLabel: z.string(),
          issuedDate: z.string(),
          validUntil: z.string(),
          state: z.string(),
        }),
      ),
    })
    .describe("Art. 58(1)(f): computed from the records"),
  publishedResults: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        organisation: z.string(),
        url: z.string().nullable(),
        date: z.string().nullable(),
      }),
    )
    .describe("Art. 58(1)(g)"),
  register: z.string().describe("the register's page"),
});
export type Information = z.infer<typeof publicInformation>;

/** Art. 58(1): the public information, computed from the records, the catalogue and the configuration. */
export async function information(store: RecordStore, graph: GraphStore, now: Date): Promise<Information> {
  const permits = await store.list<PermitData>("permit");
  const active = permits.filter((p) => p.state === "ACTIVE");
  const byPurpose = Object.fromEntries(
    PURPOSES.map((p) => [p.code, permits.filter((x) => x.data.purpose === p.code).length]),
  );
  const published = await store.list<ResultData>("result", { state: "PUBLISHED" });
  const datasets = await graph.countWhere("HealthDataset");
  const holders = new Set(
    (await graph.findNodes({ label: "HealthDataset", limit: 10_000 })).map((d) =>
      String(d.properties.publisher ?? d.properties.holder ?? ""),
    ),
  ).size;
  return {
    accessBody: {
      name: ACCESS_BODY.name,
      did: ACCESS_BODY.did,
      country: ACCESS_BODY.country,
      contact: ACCESS_BODY.contact,
      role: "Health data access body under Regulation (EU) 2025/327 (EHDS), Chapter IV",
    },
    generatedAt: now.toISOString(),
    legalBasis: [
      "Regulation (EU) 2025/327 (EHDS), Chapter IV: secondary use of electronic health data, under a data permit (Art. 68) or an approved data request (Art. 69).",
      "Health data may be used only for the purposes of Art. 53(1); the uses the regulation prohibits are refused.",
      "Regulation (EU) 2016/679 (GDPR) applies to all processing of personal data.",
    ],
    howToApply: (
      [
        [
          "Find the data",
          `Search the national dataset catalogue (${datasets} datasets${holders ? ` of ${holders} data holders` : ""}).`,
        ],
        [
          "Choose the route",
          "A data access application (Art. 67) for access to data in the secure processing environment, or a data request (Art. 69) for an anonymised statistical answer only.",
        ],
        [
          "Apply",
          "Sign in as a data user and submit the application on the 'My applications' page, with the purpose (Art. 53(1)), the datasets and the intended use.",
        ],
        [
          "Completeness check",
          "The access body checks that the application is complete; an incomplete application can be completed within four weeks.",
        ],
        [
          "Assessment and decision",
          "The access body decides within three months of receiving the complete application; it may extend once, with reasons. While it waits for information it asked you for, the clock stands still.",
        ],
        [
          "Processing and results",
          "Data are processed only inside the secure processing environment; outputs are checked before release; results are published within 18 months (Art. 61(4)).",
        ],
      ] as const
    ).map(([title, detail], i) => ({ step: i + 1, title, detail })),
    purposes: PURPOSES.map((p) => ({ ...p, permitsIssued: byPurpose[p.code] ?? 0 })),
    conditions: [
      "Access only under a data permit or an approved data request, for the purposes it names.",
      "Processing only in a secure processing environment (Art. 73); no download of personal electronic health data.",
      "Data are provided anonymised where the purpose allows it, otherwise pseudonymised (Art. 66).",
      "No re-identification or attempt at re-identification (Art. 61(3)).",
      "Outputs leave the secure processing environment only after the access body's check.",
      "Results are made public within 18 months of the end of processing (Art. 61(4)).",
    ],
    technicalMeasures: [
      "Secure processing environment operated by the access body, with access logging.",
      "Pseudonymisation by a trusted third party; the key never leaves it.",
      "Statistical disclosure control on every output (no cell below 10).",
      "Tamper-evident audit trail of every decision and state change.",
    ],
    rightsOfNaturalPersons: [
      "The right to opt out of secondary use where the Member State provides for it (Art. 71).",
      "The rights of Chapter III of the GDPR (information, access, rectification, erasure, restriction, objection), exercised with the data holder or the access body.",
      "The right to lodge a complaint with the access body and with the data protection authority.",
    ],
    statutoryPeriods: PERIOD_LIST.map(({ note: _note, ...p }) => p),
    countingRules: COUNTING_RULES,
    permitsIssued: {
      total: permits.length,
      active: active.length,
      revoked: permits.filter((p) => p.state === "REVOKED").length,
      expired: permits.filter((p) => p.state === "EXPIRED").length,
      byPurpose,
      list: permits
        .map((p) => ({
          id: p.id,
          organisation: p.organisation,
          datasets: p.data.datasetTitles,
          purpose: p.data.purpose,
          purposeLabel: purposeLabel(p.data.purpose),
          issuedDate: p.data.issuedDate,
          validUntil: p.data.validUntil,
          state: p.state,
        }))
        .sort((a, b) => b.issuedDate.localeCompare(a.issuedDate)),
    },
    publishedResults: published.map((r) => ({
      id: r.id,
      title: r.data.title,
      organisation: r.organisation,
      url: r.data.publication?.url ?? null,
      date: r.data.publication?.date ?? null,
    })),
    register: "/register",
  };
}
