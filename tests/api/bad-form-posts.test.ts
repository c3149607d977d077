import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { watchStore, type StoreWatch, VOLATILE } from "../support/store-watch";

/**
 * Bad form posts to every page action, and odd query strings to the page loaders that read them: never a
 * 5xx, and a post that cannot be right (no fields, empty ones, an unknown intent, ids of nothing, numbers
 * out of range, impossible dates, a file for a text) changes no row of the store. Odd text (100 kB, NUL,
 * control characters, a lone surrogate) must not fail either. A field of one value sent twice is refused 400.
 */

let server: TestServer;
let watch: StoreWatch;
const sessions = new Map<string, Signed>();

/** a page action: its path (`$id` is a record of the seed, or of nothing), who may post, its intents and fields */
interface PageAction {
  path: string;
  persona: string;
  intents: string[];
  fields: string[];
  /** where the seed's ids for `$id` are linked from */
  ids?: [page: string, link: RegExp];
  /** intents any text completes (a note, a reason): on a real record only their empty forms are sent */
  free?: string[];
  /** the field naming who acts: the value the page's own form holds (else empty, the caller's own participant), or every post is refused 403 before the rest is read */
  acting?: string;
  /** a post that would be right, and its fields sent wrong one at a time (VARY) */
  valid?: Record<string, string>;
  vary?: string[];
  /** a field of many values: the right post with its value twice (`datasets=a&datasets=a`) */
  twice?: string;
}

const ACTIONS: PageAction[] = [
  {
    path: "/access-body/applications/$id",
    persona: "regulator",
    intents: "complete incomplete requestInfo withdrawInfo pause resume extend grant refuse revoke".split(
      " ",
    ),
    fields:
      "note missing questions dueInDays informationRequestId reason months durationMonths conditions secureProcessingEnvironment reasons permitId".split(
        " ",
      ),
    ids: ["/access-body/applications", /href="\/access-body\/applications\/([^"?/]+)"/g],
    free: ["complete", "incomplete", "pause", "resume", "refuse"],
  },
  {
    path: "/access-body/findings",
    persona: "regulator",
    intents: ["open", "respond", "close"],
    fields:
      "organisation subjectRole title description severity relatedPermitId responseDueInDays findingId response outcome note".split(
        " ",
      ),
  },
  { path: "/access-body/permits", persona: "regulator", intents: ["revoke"], fields: ["permitId", "reason"] },
  {
    path: "/access-body/requests",
    persona: "regulator",
    intents: ["approve", "refuse", "answer"],
    fields: ["requestId", "reasons", "summary", "table"],
  },
  {
    path: "/access-body/results",
    persona: "regulator",
    intents: ["release", "reject"],
    fields: ["resultId", "note"],
  },
  {
    path: "/applications/$id",
    persona: "researcher",
    intents: ["answer", "withdraw"],
    fields: ["informationRequestId", "answer", "reason"],
    ids: ["/applications", /href="\/applications\/([^"?/]+)"/g],
    free: ["withdraw"],
  },
  {
    path: "/applications",
    persona: "researcher",
    intents: ["apply", "answer", "withdraw", "request", "declare"],
    fields:
      "title summary purpose datasets pseudonymised durationMonths informationRequestId answer applicationId reason question processingCompletedDate source".split(
        " ",
      ),
    valid: {
      intent: "apply",
      title: "A study",
      summary: "What it asks",
      purpose: "scientificResearch",
      datasets: "dataset-lmc-ehr",
      durationMonths: "12",
    },
    vary: ["purpose", "datasets", "durationMonths"],
    twice: "datasets",
  },
  {
    path: "/audit/retention",
    persona: "admin",
    intents: [""],
    fields: ["kind", "days"],
    valid: { kind: "access", days: "400" },
    vary: ["kind", "days"],
  },
  {
    path: "/catalogue/$id",
    persona: "clinic",
    intents: ["withdraw"],
    fields: ["search"],
    ids: ["/catalogue", /href="\/catalogue\/([^"?/]+)\?/g],
    free: ["withdraw"],
  },
  {
    path: "/catalogue/new",
    persona: "clinic",
    intents: [""],
    fields:
      "title description publisher theme keywords accessRights conformsTo purposes records recordCount issued modified".split(
        " ",
      ),
  },
  { path: "/components/$name", persona: "admin", intents: [""], fields: [] },
  { path: "/components", persona: "admin", intents: [""], fields: ["name"] },
  {
    path: "/credentials",
    persona: "admin",
    intents: ["revoke", "request"],
    fields: ["id", "confirm", "participantContextId", "credentialType"],
  },
  {
    path: "/devices",
    persona: "patient1",
    intents: ["remove", "erase", "measure"],
    fields: ["deviceId", "confirm", "measure", "value", "effective"],
    valid: { intent: "measure", measure: "8867-4|/min", value: "70", effective: "" },
    vary: ["measure", "value", "effective"],
  },
  {
    path: "/directory",
    persona: "admin",
    intents: ["remove", "add"],
    fields: ["did", "displayName", "dspEndpoint", "dataPlaneHosts", "participantId", "role"],
  },
  { path: "/my-record", persona: "patient1", intents: ["grant", "revoke"], fields: ["studyId", "title"] },
  {
    path: "/negotiate",
    acting: "participant",
    persona: "researcher",
    intents: [""],
    fields: ["participant", "offer", "counterPartyAddress", "provider", "providerDid"],
  },
  {
    path: "/onboarding",
    persona: "admin",
    intents: [""],
    fields: ["participantId", "displayName", "role", "did", "dspEndpoint"],
  },
  {
    path: "/patients/$id",
    persona: "admin",
    intents: ["grant", "revoke"],
    fields: ["studyId", "title"],
    ids: ["/patients", /href="\/patients\/([^"?/]+)"/g],
  },
  {
    path: "/policies",
    persona: "admin",
    intents: ["delete", "update", "create"],
    fields: ["participantId", "policyId", "document"],
    acting: "participantId",
  },
  {
    path: "/share",
    acting: "participant",
    persona: "clinic",
    intents: ["offer", "withdraw", "create"],
    fields: [
      "participant",
      "assetId",
      "policyId",
      "name",
      "description",
      "contentType",
      "addressMode",
      "baseUrl",
    ],
  },
  {
    path: "/transfers/$id",
    acting: "participant",
    persona: "researcher",
    intents: [""],
    fields: ["participant"],
  },
  {
    path: "/transfers",
    acting: "participant",
    persona: "researcher",
    intents: [""],
    fields: ["participant", "negotiationId"],
  },
  {
    path: "/wallet",
    persona: "patient1",
    intents: ["share", "decline"],
    fields: ["request", "identity", "givenName", "familyName", "birthDate"],
  },
];

const LONG = "x".repeat(100_000);
/** values no form could take for any field: none of them may write */
const NEVER = ["", " ", "-1", "1e9", "abc", "2026-02-30", "NO-SUCH-ID-1", `ID-${"9".repeat(2000)}`];
/** wrong values for one field of an otherwise right post */
const VARY = [
  ...NEVER.slice(2),
  "0",
  "1.5",
  "99999999999999999999",
  "Infinity",
  "2026-02-30T10:00",
  "2026-13-01T10:00",
];
/** odd text: refused or taken, never a failure */
const ODD = [LONG, "a\u0000b", "\u0001\u0002\u001f\u007f", "\ud800", "<script>x</script>", "[1,2]"];

type Body = { kind: string; body: string | FormData };

const form = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();
/** the raw form text (a lone surrogate as its UTF-8 bytes, which URLSearchParams would replace) */
const rawForm = (pairs: [string, string][]) =>
  pairs.map(([k, v]) => `${k}=${v === "\ud800" ? "%ED%A0%80" : encodeURIComponent(v)}`).join("&");

/**
 * A field of one value sent twice with two values, one field at a time (the intent too), on an empty post and
 * on the right one: refused 400 by the one form reader (app/lib/api-errors.server.ts `readForm`), never one taken.
 */
function twiceFor(a: PageAction, acting: string): Body[] {
  const intent = a.intents[0];
  const base: [string, string][] = [
    ...(intent ? [["intent", intent] as [string, string]] : []),
    ...a.fields.map((f) => [f, f === a.acting ? acting : ""] as [string, string]),
  ];
  const twice = (pairs: [string, string][], other: (v: string) => string) =>
    pairs
      .filter(([f]) => f !== a.twice)
      .map(([f, v]) => ({ kind: `${f} twice`, body: rawForm([...pairs, [f, other(v)]]) }));
  return [
    ...twice(base, (v) => (v === intent ? "no-such-intent" : `${v}x`)),
    ...twice(Object.entries(a.valid ?? {}), (v) => `${v}1`).map((b) => ({
      ...b,
      kind: `right post, ${b.kind}`,
    })),
  ];
}

function bodiesFor(a: PageAction, realRecord: boolean, acting: string): { never: Body[]; odd: Body[] } {
  const never: Body[] = [
    { kind: "no body", body: "" },
    {
      kind: "unknown intent",
      body: form([["intent", "no-such-intent"], ...a.fields.map((f) => [f, ""] as [string, string])]),
    },
    { kind: "unknown _action", body: form([["_action", "drop"]]) },
    {
      kind: "duplicated intent",
      body: form([
        ["intent", "x"],
        ["intent", "y"],
      ]),
    },
  ];
  const odd: Body[] = [];
  for (const intent of a.intents) {
    const withIntent = (v: string, only?: string): [string, string][] => [
      ...(intent ? [["intent", intent] as [string, string]] : []),
      ...a.fields.map((f) => [f, f === a.acting ? acting : only && only !== f ? "" : v] as [string, string]),
    ];
    // on a real record, a free intent is right whatever its text
    if (realRecord && a.free?.includes(intent)) continue;
    never.push({ kind: `${intent}: fields empty`, body: form(withIntent("")) });
    const files = new FormData();
    if (intent) files.append("intent", intent);
    for (const f of a.fields) files.append(f, new Blob(["%PDF"], { type: "application/pdf" }), "a.pdf");
    never.push({ kind: `${intent}: files`, body: files });
    for (const v of NEVER.slice(2))
      never.push({ kind: `${intent}: fields ${v.slice(0, 20)}`, body: rawForm(withIntent(v)) });
    never.push({
      kind: `${intent}: duplicated fields`,
      body: rawForm([...withIntent("NO-SUCH-ID-1"), ...withIntent("NO-SUCH-ID-2")]),
    });
    // each field long once (the first intent), to keep the run short
    for (const f of intent === a.intents[0] ? a.fields.filter((f) => f !== a.acting) : [])
      odd.push({ kind: `${intent}: ${f} of 100 kB`, body: rawForm(withIntent(LONG, f)) });
    for (const v of ODD.slice(1))
      odd.push({ kind: `${intent}: fields ${JSON.stringify(v.slice(0, 12))}`, body: rawForm(withIntent(v)) });
  }
  for (const f of a.vary ?? [])
    for (const v of VARY)
      never.push({ kind: `${f}=${v.slice(0, 20)}`, body: rawForm(Object.entries({ ...a.valid, [f]: v })) });
  if (a.twice && a.valid)
    never.push({
      kind: `${a.twice} twice`,
      body: rawForm([...Object.entries(a.valid), [a.twice, a.valid[a.twice]]]),
    });
  return { never, odd };
}

/** the pages whose loaders read a query, and who reads them */
const LOADERS: [path: string, persona: string][] = [
  ["/", "admin"],
  ["/access-body/applications", "regulator"],
  ["/access-body/compliance", "regulator"],
  ["/access-body/permits", "regulator"],
  ["/access-body/report", "regulator"],
  ["/ask", "researcher"],
  ["/audit", "admin"],
  ["/audit.csv", "admin"],
  ["/auth/signin", "admin"],
  ["/auth/wallet", "admin"],
  ["/auth/wallet/status", "admin"],
  ["/catalogue", "researcher"],
  ["/catalogue/NO-SUCH-ID", "clinic"],
  ["/cohorts", "researcher"],
  ["/directory", "admin"],
  ["/discover", "researcher"],
  ["/graph", "admin"],
  ["/graph/drawing", "admin"],
  ["/graph/expand", "admin"],
  ["/graph/node", "admin"],
  ["/negotiate", "researcher"],
  ["/negotiations", "admin"],
  ["/onboarding", "admin"],
  ["/patients", "admin"],
  ["/patients", "clinic"],
  ["/policies", "admin"],
  ["/share", "clinic"],
  ["/tasks", "admin"],
  ["/transfers", "researcher"],
  ["/wallet", "patient1"],
];
/** every name a loader reads */
const PARAMS =
  "page limit offset id q persona template participant edit duplicate new deleting created state kind run condition drug measurement ageBand gender k provider asset show request sid depth tab returnTo restart watch check layer focus overview confirming saved offered negotiation withdrawn error chain".split(
    " ",
  );
const QUERY_VALUES = ["-1", "1e9", "99999999999999999999", "abc", "", "0x1F", "2026-02-30", "X".repeat(5000)];

beforeAll(async () => {
  server = await startTestServer();
  for (const p of new Set([...ACTIONS, ...LOADERS.map(([, persona]) => ({ persona }))].map((a) => a.persona)))
    sessions.set(p, await signIn(server.url, p));
  watch = watchStore(server.services.db, VOLATILE);
}, 120_000);
afterAll(async () => {
  watch?.stop();
  await server?.close();
});

interface Answer {
  what: string;
  status: number;
  text: string;
  changed: string[];
}

async function post(persona: string, path: string, kind: string, body: string | FormData): Promise<Answer> {
  await server.services.flushReadLogs();
  const mark = watch.mark();
  const res = await sessions.get(persona)!.api(path, {
    method: "POST",
    redirect: "manual",
    headers: typeof body === "string" ? { "content-type": "application/x-www-form-urlencoded" } : {},
    body,
  });
  const text = await res.text();
  await server.services.flushReadLogs();
  return {
    what: `${persona} POST ${path.slice(0, 80)} [${kind}]`,
    status: res.status,
    text: text.slice(0, 300),
    changed: watch.changedSince(mark),
  };
}

async function actingOf(a: PageAction): Promise<string> {
  if (!a.acting) return "";
  const html = await (await sessions.get(a.persona)!.api(`${a.path.replace(/\/\$\w+/, "")}?new=1`)).text();
  return new RegExp(`name="${a.acting}" value="([^"]+)"`).exec(html)?.[1] ?? "";
}

async function idsOf(a: PageAction): Promise<string[]> {
  if (!a.ids) return ["NO-SUCH-ID"];
  const html = await (await sessions.get(a.persona)!.api(a.ids[0])).text();
  return [...new Set([...html.matchAll(a.ids[1])].map((m) => decodeURIComponent(m[1])))].slice(0, 1);
}

describe("bad form posts to the page actions", () => {
  it("never a 5xx; a post that cannot be right changes nothing", async () => {
    const problems: string[] = [];
    const seen: Answer[] = [];
    for (const a of ACTIONS) {
      // a real record, a record of nothing, and an id of 3000 characters (only the bodies of no intent)
      const targets: [string, boolean | null][] = a.path.includes("$")
        ? [
            ...(await idsOf(a)).map(
              (id) => [a.path.replace(/\$\w+/, encodeURIComponent(id)), true] as [string, boolean | null],
            ),
            [a.path.replace(/\$\w+/, "NO-SUCH-ID-1"), false],
            [a.path.replace(/\$\w+/, "X".repeat(3000)), null],
          ]
        : [[a.path, false]];
      const acting = await actingOf(a);
      for (const [path, real] of targets) {
        const { never, odd } =
          real === null
            ? { never: bodiesFor(a, false, "").never.slice(0, 4), odd: [] }
            : bodiesFor(a, real, acting);
        for (const b of never) {
          const r = await post(a.persona, path, b.kind, b.body);
          seen.push(r);
          if (r.status >= 500) problems.push(`${r.status}: ${r.what} ${r.text}`);
          else if (r.changed.length) problems.push(`changed ${r.changed.join(",")}: ${r.what}`);
        }
        for (const b of real === null ? [] : twiceFor(a, acting)) {
          const r = await post(a.persona, path, b.kind, b.body);
          seen.push(r);
          if (r.status !== 400 || r.changed.length)
            problems.push(`${r.status}, changed [${r.changed.join(",")}], not 400: ${r.what}`);
        }
        for (const b of odd) {
          const r = await post(a.persona, path, b.kind, b.body);
          seen.push(r);
          if (r.status >= 500) problems.push(`${r.status}: ${r.what} ${r.text}`);
          else if (r.changed.length) console.log(`[odd text taken] ${r.changed.join(",")}: ${r.what}`);
        }
      }
    }
    console.log(`[bad-form-posts] ${seen.length} posts`);
    if (process.env.FORMS_DUMP)
      for (const r of seen)
        console.log(`[dump] ${r.status} ${r.what} ${r.text.slice(0, 160).replace(/\s+/g, " ")}`);
    expect(problems).toEqual([]);
  }, 300_000);
});

describe("odd query strings to the page loaders", () => {
  it("never a 5xx", async () => {
    const queries = [
      ...QUERY_VALUES.map((v) => PARAMS.map((k) => `${k}=${encodeURIComponent(v)}`).join("&")),
      PARAMS.map((k) => `${k}=a&${k}=b`).join("&"),
      PARAMS.map((k) => `${k}=%00%01`).join("&"),
      PARAMS.map((k) => `${k}=%ED%A0%80`).join("&"),
      PARAMS.map((k) => `${k}=%ZZ`).join("&"),
      PARAMS.map((k) => `${k}[]=1`).join("&"),
    ];
    const problems: string[] = [];
    for (const [path, persona] of LOADERS)
      for (const q of queries) {
        const res = await sessions.get(persona)!.api(`${path}?${q}`, { redirect: "manual" });
        const text = await res.text();
        if (res.status >= 500)
          problems.push(`${res.status}: ${persona} GET ${path}?${q.slice(0, 60)} ${text.slice(0, 200)}`);
      }
    expect(problems).toEqual([]);
  }, 300_000);
});
