import { createHash } from "node:crypto";
import { SUPERVISED } from "../access-body/model";
import { PURPOSES, purposeLabel } from "../access-body/periods";
import type { AuditInput } from "../audit/model";
import { CRITERIA } from "../federated/service";
import { MIN_K } from "../federated/suppression";
import type { Services } from "../services";

/**
 * Static mode's registry: which services views may use without a server behind them, and how
 * each method behaves there. One entry per service method.
 *
 * - `read`: recorded by `npm run fixtures` (while it walks every view for every persona through
 *   the real loaders) and answered from `fixtures/static/<service>/<method>.json` in static mode.
 *   A call with arguments that were never recorded (an id a visitor types into the address bar)
 *   throws FixtureMissingError: ApiError 404 "The offline demo does not include this.", which a page
 *   answers as its "not found" (never a 500: server/static-mode/http.ts); it names the call and the
 *   fixture for developers, and the view walk counts it.
 * - `write`: refused in static mode with ApiError 403 "This is a demonstration: changes are not
 *   saved" (the views show that text where they show any refused change).
 * - `local` (beside `methods`): members answered in place, without fixtures (`graph.kind`, `graph.ping`).
 *
 * The fixture test (tests/api/static-fixtures.test.ts) parses recorded results with the zod schema
 * of the route each fixture stands in for, where one exists.
 * `onMissing: "not-found"`: for drill-downs whose arguments are unbounded (the node inspector of
 * the graph explorer), whose views show the 404 in place: their misses are counted apart ("not-found"),
 * so the walk fails only on the others; `missing` is their own sentence.
 *
 * Adding a capability (see docs/desktop.md, "Static mode"): add `<service>: { methods: { ... } }`
 * below with every method classified, add its views' entry paths to WALK.start (scripts/static-mode/walk.ts)
 * if no link leads there, then run `npm run fixtures` and commit fixtures/static/.
 */

export interface MethodEntry {
  kind: "read" | "write";
  onMissing?: "error" | "not-found";
  /** what a visitor reads when a call was not recorded (default OFFLINE_DEMO_LACKS) */
  missing?: string;
  /** the arguments that make the key, when some must not (a request's cookie header) */
  key?: (args: unknown[]) => unknown[];
}

type Methods<S> = { [K in keyof S as S[K] extends (...args: never[]) => unknown ? K : never]?: MethodEntry };

export interface ServiceEntry<S> {
  methods: Methods<S>;
  /** members answered in place, without fixtures */
  local?: Partial<S>;
}

export type Registry = { [K in keyof Services]?: ServiceEntry<Services[K]> };

const read: MethodEntry = { kind: "read" };
const readKeyed = (key: MethodEntry["key"], onMissing?: MethodEntry["onMissing"]): MethodEntry => ({
  kind: "read",
  key,
  onMissing,
});
/** a read whose arguments a visitor chooses freely: what was not recorded answers 404 in plain words */
const readOrSay = (missing: string, key?: MethodEntry["key"]): MethodEntry => ({
  ...readKeyed(key, "not-found"),
  missing,
});

/** what a visitor reads when the offline demo has no recording of what they asked for */
export const OFFLINE_DEMO_LACKS = "The offline demo does not include this.";

/**
 * A cohort by what decides its count: the criteria given (empty fields dropped, as the service
 * does) and k (empty is the default). The user only names who is logged, and the form's other
 * fields (`run`) change nothing: `?condition=X&run=1` and the form's
 * `?condition=X&drug=&…&k=&run=1` are one cohort.
 */
export const cohortKey = (args: unknown[]) => {
  const params = args[0] instanceof URLSearchParams ? args[0] : new URLSearchParams();
  const criteria = Object.fromEntries(
    CRITERIA.flatMap((c) => {
      const v = params.get(c)?.trim();
      return v ? [[c, v]] : [];
    }),
  );
  const k = params.get("k")?.trim();
  // fixtures are recorded with the default k (MIN_K): the form sends it, the walk's links leave it out
  return [{ criteria, k: k && k !== String(MIN_K) ? k : null }];
};
/** a graph read's key: what its reader may see, not who reads (the actor is for the access log, which is off here) */
const byViewer = (args: unknown[]) => [...args.slice(0, -1), (args.at(-1) as { viewer?: unknown }).viewer];
/** a key from the arguments' digest, for a method whose argument is a whole result (toCsv(dashboard)) */
const byDigest = (args: unknown[]) => [createHash("sha256").update(JSON.stringify(args)).digest("base64url")];
const write: MethodEntry = { kind: "write" };

export const REGISTRY: Registry = {
  catalogue: {
    methods: {
      list: read,
      get: read,
      create: write,
      remove: write,
    },
  },
  graphQueries: {
    methods: {
      graph: readKeyed(byViewer),
      expand: readKeyed(byViewer, "not-found"),
      node: readKeyed(byViewer, "not-found"),
      validate: read,
    },
  },
  graph: {
    methods: {
      countNodes: read,
      countWhere: read,
      getNode: read,
      relationships: read,
      findNodes: read,
      sampleGraph: read,
      expand: { kind: "read", onMissing: "not-found" },
      counts: read,
      mutate: write,
      importBatch: write,
    },
    local: {
      // what the start-up line prints as the graph store
      kind: "fixtures" as "sqlite",
      ping: async () => true,
      version: () => 0,
      close: async () => {},
    },
  },
  patients: {
    methods: {
      // the third argument names the audited read (server/audit/access-log.ts): not part of the answer
      list: readKeyed((args) => args.slice(0, 2)),
      profile: readKeyed((args) => args.slice(0, 2)),
      insights: read,
      research: read,
      grantConsent: write,
      revokeConsent: write,
    },
  },
  accessLog: {
    methods: {},
    local: {
      read: async () => {},
      refused: async () => {},
      flush: async () => {},
      ofPatient: async () => [],
      close: async () => {},
    },
  },
  accessBody: {
    methods: {
      workQueue: read,
      listApplications: read,
      getApplication: read,
      listInformationRequests: read,
      getInformationRequest: read,
      listPermits: read,
      getPermit: read,
      listDataRequests: read,
      getDataRequest: read,
      listFindings: read,
      getFinding: read,
      listResults: read,
      getResult: read,
      register: read,
      information: read,
      activityReport: read,
      compliance: read,
      // the probes run against this server; the caller's cookie does not change what they show
      tck: readKeyed((args) => [{ rerun: (args[0] as { rerun?: boolean } | undefined)?.rerun ?? false }]),
      // the default report period depends on the day: replay answers as on the day of recording
      reportPeriod: read,
      applicationView: read,
      submitApplication: write,
      withdrawApplication: write,
      decideCompleteness: write,
      clockEvent: write,
      requestInformation: write,
      answerInformationRequest: write,
      withdrawInformationRequest: write,
      issuePermit: write,
      refuseApplication: write,
      decidePermit: write,
      revokePermit: write,
      submitDataRequest: write,
      withdrawDataRequest: write,
      decideDataRequest: write,
      openFinding: write,
      respondFinding: write,
      closeFinding: write,
      postResult: write,
    },
    local: {
      purposes: PURPOSES,
      supervised: SUPERVISED,
      purposeLabel,
      ensureReady: async () => {},
      // the fixtures never change: one version
      readyVersion: async () => "static",
      now: () => new Date(),
    },
  },
  patientApp: {
    methods: {
      devices: read,
      pairing: read,
      record: read,
      observations: read,
      lastSync: read,
      challenge: write,
      createAccount: write,
      createPairing: write,
      completePairing: write,
      revokeDevice: write,
      addObservations: write,
      sync: write,
      erase: write,
      flushLog: write,
    },
  },
  // wallet sign-in: static mode has none (the persona switcher replaces sign-in)
  eudi: {
    methods: {
      start: write,
      resume: write,
      status: write,
      requestObject: write,
      directPost: write,
    },
    local: { devWallet: undefined },
  },
  analytics: { methods: { dashboard: read, toCsv: readKeyed(byDigest) } },
  // cohorts: every cohort of one criterion (and all persons) is recorded (scripts/static-mode/views.ts)
  federated: {
    methods: {
      summary: readOrSay(
        "The offline demo does not include this cohort: it counts all persons and cohorts of one criterion " +
          "(one condition, drug, measurement, age band or gender) with the default k. Clear the other fields to count one.",
        cohortKey,
      ),
      options: read,
      withheldCounts: read,
      flushLog: write,
    },
  },
  // questions: every template's example questions are recorded; any other question answers 404 in place
  nlq: {
    methods: {
      list: read,
      backend: read,
      ask: readOrSay(
        "The offline demo does not include this question: it answers the example questions listed under “Try”. " +
          "Connected to a live hub, any question is matched to a template.",
      ),
      flushLog: write,
    },
  },
  eehrxf: { methods: { coverage: read } },
  overview: { methods: { forUser: read } },
  credentials: {
    methods: {
      list: read,
      definitions: read,
      requestableContexts: read,
      request: write,
      revoke: write,
    },
  },
  policies: {
    methods: {
      list: read,
      get: read,
      templates: read,
      participants: read,
      create: write,
      replace: write,
      remove: write,
    },
  },
  auditRetention: {
    methods: { list: read, lastPurge: read, set: write, purge: write, purgeIfDue: write },
  },
  trustCenter: { methods: { view: read } },
  operator: {
    methods: {
      components: read,
      topology: read,
      diagnosis: read,
      directory: read,
      tenants: read,
      discoveryCheck: read,
      identityProvider: read,
      catalog: read,
      checkCatalogRequest: read,
      restart: write,
      addDirectoryEntry: write,
      removeDirectoryEntry: write,
    },
    local: { close: async () => {} },
  },
  // the audit entries as the persona may see them (server/privacy/audit-view.ts)
  auditView: { methods: { list: read } },
  audit: {
    methods: {
      list: read,
      count: read,
      verify: read,
      kinds: read,
      countBefore: read,
      purge: write,
    },
    // views audit what they read (an export, a pseudonym lookup): in static mode nothing is kept
    local: {
      append: async (input: AuditInput) => ({
        id: "static",
        seq: 0,
        outcome: "",
        ...input,
        timestamp: new Date().toISOString(),
        prevHash: "",
        hash: "",
      }),
    },
  },
  dataspace: {
    methods: {
      listNegotiations: read,
      fetchProviderCatalog: read,
      providerAddressOf: read,
      summariseCatalog: read,
      getNegotiation: read,
      listTransfers: read,
      getTransfer: read,
      pullTransferData: read,
      listAssets: read,
      listAssetGroups: read,
      offersOf: read,
      listParticipants: read,
      participantStatus: read,
      participantForUser: read,
      participantCredentials: read,
      listTasks: read,
      listCredentialDefinitions: read,
      startNegotiation: write,
      startTransfer: write,
      createAsset: write,
      offerAsset: write,
      withdrawOffer: write,
      onboardParticipant: write,
      updateParticipant: write,
      requestCredential: write,
      revokeCredential: write,
    },
    local: {
      mode: "embedded",
      local: undefined,
      close: async () => {},
    },
  },
};

export const DEMO_WRITE_MESSAGE = "This is a demonstration: changes are not saved";
