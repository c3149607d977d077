/**
 * Natural-language questions (GET/POST /api/nlq, GET /api/nlq/backend).
 *
 * How a question is answered:
 * 1. Templates first (templates.ts, in order, or only `templateId`): a pattern matches the
 *    normalised question, its parameters are resolved to codes in the ontology layer
 *    (terminology.ts); a template whose terms do not resolve does not match. The template's
 *    read-only traversal runs through the GraphStore port with codes only — free text is never
 *    executed — and the answer carries the rows, the Cypher it stands for with its parameters,
 *    the steps that ran, the interpretation, the layers and the caller's ODRL scope (k applied).
 * 2. No template matched and NLQ_PROXY_URL is set: the question goes to the language back end
 *    (proxy.ts). Its failure is 502 `{error}`. Its proposed Cypher must pass the read-only check
 *    (cypher-guard.ts), else 502 — the back end misbehaved, not the caller — and nothing runs.
 *    A read-only proposal that has the shape of one of our templates runs as that template (same
 *    scope, same k); any other is returned with `executed: false` and the reason: it is never run,
 *    on the embedded store (which has no Cypher engine) nor on Neo4j, because an arbitrary query
 *    can return person-level rows that no k threshold can protect.
 * 3. No template matched and no proxy: 200 with `matched: false`, the reason and the closest
 *    templates as suggestions — the request was valid; the service cannot answer it, and says how
 *    to ask instead. Validation problems (no question, unknown templateId, a question that does
 *    not fit the template asked for) are 400.
 */
import { z } from "zod";
import { matchByMeaning } from "./understand";
import type { SessionUser } from "../auth/user";
import {
  type ConceptDictionary,
  describeConcept,
  describedConcept,
  normalizeTerm,
  resolveTerm,
  type Resolution,
} from "../analytics";
import { ApiError, badGateway, badRequest } from "../http/errors";
import { createKept, EVERYONE } from "../http/kept";
import {
  scopeFor,
  createQueryLog,
  odrlScope,
  publicSuppressionReason,
  type FederatedDeps,
  type OdrlScope,
} from "../federated";
import { checkReadOnly, matchShape } from "./cypher-guard";
import { column, finalize, type FinalResult } from "./execute";
import { viewerOf, minimiseTable } from "../privacy";
import { askProxy, displayUrl, probeProxy, proxyProbe, ProxyError } from "./proxy";
import { describeTemplate, TEMPLATES, type Template } from "./templates";

export const QUESTION_MAX = 500;

const text = z.string();
const texts = z.array(text);
/** POST /api/nlq's answer (its declaration: contract.ts) */
export const nlqAnswer = z.object({
  question: text,
  matched: z.boolean().describe("a template matched the question"),
  backend: z
    .enum(["templates", "proxy"])
    .describe("who produced the query: the templates or the language back end"),
  executed: z.boolean().describe("whether a query ran"),
  template: z.object({ id: text, title: text }).nullable(),
  parameters: z.record(text, z.object({ term: text, via: text, ...describedConcept.shape })),
  query: z
    .object({
      language: z.literal("cypher"),
      text,
      parameters: z.record(text, text),
      executedVia: text.nullable(),
      plan: texts,
    })
    .nullable(),
  interpretation: text,
  layers: texts,
  columns: z.array(column),
  rows: z.array(z.record(text, z.union([text, z.number(), z.null()]))),
  suppressedCells: z.array(
    z.object({
      row: z.number().int(),
      column: text,
      reason: z.enum([...publicSuppressionReason.options, "derived-from-suppressed"]),
    }),
  ),
  scope: odrlScope,
  reason: text.optional(),
  suggestions: z.array(z.object({ templateId: text, title: text, example: text })).optional(),
  unresolvedTerms: texts.optional(),
  proxy: z.object({ url: text, explanation: text.nullable() }).optional(),
  graphVersion: z.number(),
  ms: z.number(),
});
export type NlqAnswer = z.infer<typeof nlqAnswer>;

/** GET /api/nlq's answer: the templates and how questions are answered */
export const nlqTemplates = z.object({
  templates: z.array(
    z.object({
      id: text,
      title: text,
      description: text,
      patterns: texts.describe("regular expressions (sources) of the questions it answers word for word"),
      examples: texts,
      parameters: z.array(
        z.object({
          name: text,
          kind: z.enum(["condition", "drug", "measurement", "term"]),
          description: text,
        }),
      ),
      layers: texts,
      cypher: text.describe("the Cypher its read-only traversal stands for"),
    }),
  ),
  count: z.number().int(),
  backend: z.object({
    mode: z.enum(["templates", "templates+proxy"]),
    proxyUrl: text.nullable().describe("the language back end's address, without credentials"),
  }),
  policy: texts,
});
/** GET /api/nlq/backend's answer: who answers questions, the language back end probed (at most every 10 s) */
export const nlqBackend = z.object({
  answersFirst: z.literal("templates"),
  templates: z.number().int().describe("how many templates"),
  store: z.enum(["sqlite", "neo4j", "postgres"]).describe("the graph store the templates read"),
  mode: z.enum(["templates", "templates+proxy"]),
  backend: text.describe('"templates", or the language back end\'s address'),
  proxy: proxyProbe.extend({ url: text, checkedAt: text, timeoutMs: z.number() }).nullable(),
  note: text,
});

export function normalizeQuestion(q: string): string {
  return q
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[’`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[?.!]+$/, "")
    .trim();
}

type Match = { template: Template; params: Record<string, Resolution> };

function cleanTerm(v: string): string {
  return normalizeTerm(v.replace(/\s+(?:patients|people|persons)$/, "")).replace(
    /^(?:diagnosed\s+with|with)\s+/,
    "",
  );
}

function resolveParam(
  dict: ConceptDictionary,
  kind: Template["params"][number]["kind"],
  value: string,
): Resolution | null {
  for (const k of kind === "term" ? (["condition", "drug", "measurement"] as const) : [kind]) {
    const r = resolveTerm(dict, k, value);
    if (r) return r;
  }
  return null;
}

/** the template's parameters resolved to concepts, else the first value that does not ("" when none is given) */
function resolveParams(
  template: Template,
  dict: ConceptDictionary,
  valueOf: (name: string) => string | undefined,
): { params: Record<string, Resolution> } | { unresolved: string } {
  const params: Record<string, Resolution> = {};
  for (const p of template.params) {
    const value = valueOf(p.name);
    const r = value === undefined ? null : resolveParam(dict, p.kind, value);
    if (!r) return { unresolved: value ?? "" };
    params[p.name] = r;
  }
  return { params };
}

/**
 * The first template whose pattern matches and whose terms all resolve; else the template the
 * question means (its intent words and the concepts it names: server/nlq/understand.ts); the
 * unresolved terms otherwise.
 */
export function matchQuestion(
  question: string,
  dict: ConceptDictionary,
  candidates: Template[] = TEMPLATES,
): { match: Match | null; unresolved: string[]; patternMatched: boolean } {
  const norm = normalizeQuestion(question);
  const unresolved: string[] = [];
  let patternMatched = false;
  for (const template of candidates) {
    for (const pattern of template.patterns) {
      const m = pattern.exec(norm);
      if (!m) continue;
      patternMatched = true;
      const got = resolveParams(template, dict, (name) => {
        const raw = m.groups?.[name];
        return (raw && cleanTerm(raw)) || undefined;
      });
      if ("params" in got) return { match: { template, params: got.params }, unresolved, patternMatched };
      if (got.unresolved && !unresolved.includes(got.unresolved)) unresolved.push(got.unresolved);
    }
  }
  // no pattern word for word: the intent words and the concepts the question names (understand.ts)
  const meant = matchByMeaning(question, dict, candidates);
  if (meant) return { match: meant, unresolved: [], patternMatched: true };
  return { match: null, unresolved, patternMatched };
}

function suggest(question: string) {
  const words = new Set(
    normalizeQuestion(question)
      .split(/\W+/)
      .filter((w) => w.length > 2),
  );
  return TEMPLATES.map((t) => {
    const text = `${t.title} ${t.description} ${t.examples.join(" ")}`.toLowerCase();
    const score = [...words].filter((w) => text.includes(w)).length;
    return { t, score };
  })
    .sort((a, b) => b.score - a.score)
    .slice(0, 3)
    .map(({ t }) => ({ templateId: t.id, title: t.title, example: t.examples[0] }));
}

export function createNlqService(deps: FederatedDeps & { proxyUrl?: string; timeoutMs: number }) {
  const { graph } = deps;
  const log = createQueryLog(deps.auditBatches);
  /** finished results per graph version, template, codes and k: a repeated question costs nothing */
  const results = createKept<FinalResult>({ max: 300 });
  /** the language back end's probe, at most every 10 s (callers at the same time share one) */
  const probes = createKept<{ at: number; value: Awaited<ReturnType<typeof probeProxy>> }>({
    max: 1,
    ttlOf: () => 10_000,
  });

  async function runTemplate(
    match: Match,
    scope: OdrlScope,
    started: number,
    question: string,
    backend: "templates" | "proxy",
  ): Promise<NlqAnswer> {
    const version = graph.version();
    const key = {
      caller: EVERYONE,
      versions: [version],
      args: [
        match.template.id,
        scope.k,
        Object.entries(match.params).map(([k, r]) => `${k}=${r.concept.code}`),
      ],
    };
    const result = await results(key, async () => {
      const [index, dict] = await Promise.all([deps.omop.index(), deps.concepts.get()]);
      const concepts = Object.fromEntries(Object.entries(match.params).map(([k, r]) => [k, r.concept]));
      return finalize(await match.template.run({ graph, index, dict }, concepts), scope.k);
    });
    // a write while the template ran: keep the answer out of the cache
    if (graph.version() !== version) results.forget(key);
    return answerOf(question, scope, started, {
      matched: backend === "templates",
      backend,
      executed: true,
      template: { id: match.template.id, title: match.template.title },
      parameters: Object.fromEntries(
        Object.entries(match.params).map(([k, r]) => [
          k,
          { term: r.term, via: r.via, ...describeConcept(r.concept) },
        ]),
      ),
      query: {
        language: "cypher",
        text: match.template.cypher,
        parameters: Object.fromEntries(Object.entries(match.params).map(([k, r]) => [k, r.concept.code])),
        executedVia: `read-only traversal through the GraphStore port (${graph.kind} store), equivalent to the Cypher shown`,
        plan: result.plan,
      },
      interpretation: result.interpretation,
      layers: match.template.layers,
      columns: result.columns,
      rows: result.rows,
      suppressedCells: result.suppressedCells,
      graphVersion: version,
    });
  }

  /** an answer with no rows, or (`extra`) what it has */
  function answerOf(
    question: string,
    scope: OdrlScope,
    started: number,
    extra: Partial<NlqAnswer>,
  ): NlqAnswer {
    return {
      question,
      matched: false,
      backend: "templates",
      executed: false,
      template: null,
      parameters: {},
      query: null,
      interpretation: "",
      layers: [],
      columns: [],
      rows: [],
      suppressedCells: [],
      scope,
      graphVersion: graph.version(),
      ms: Math.round(performance.now() - started),
      ...extra,
    };
  }

  async function viaProxy(
    url: string,
    question: string,
    scope: OdrlScope,
    started: number,
    dict: ConceptDictionary,
  ): Promise<NlqAnswer> {
    let proposal;
    try {
      proposal = await askProxy(url, question, TEMPLATES, deps.timeoutMs);
    } catch (e) {
      if (e instanceof ProxyError) throw badGateway(`The language back end failed: it ${e.message}`);
      throw e;
    }
    const guard = checkReadOnly(proposal.cypher);
    if (!guard.ok) {
      throw new ApiError(
        502,
        `The language back end proposed a query that is not read-only: ${guard.reason}. Nothing was run.`,
        proposal.cypher.slice(0, 1000),
      );
    }
    const proxy = { url: displayUrl(url), explanation: proposal.explanation };
    for (const template of TEMPLATES) {
      const values = matchShape(template.cypher, proposal.cypher, proposal.parameters);
      const got = values && resolveParams(template, dict, (name) => values[name]);
      if (!got || !("params" in got)) continue;
      const answer = await runTemplate({ template, params: got.params }, scope, started, question, "proxy");
      return { ...answer, query: { ...answer.query!, text: proposal.cypher }, proxy };
    }
    return answerOf(question, scope, started, {
      backend: "proxy",
      query: {
        language: "cypher",
        text: proposal.cypher,
        parameters: Object.fromEntries(Object.entries(proposal.parameters).map(([k, v]) => [k, String(v)])),
        executedVia: null,
        plan: [],
      },
      interpretation: proposal.explanation ?? "",
      reason:
        "The language back end proposed a read-only query, shown here, that does not have the shape of any template, so it was not run: " +
        `the ${graph.kind === "sqlite" ? "embedded store has no Cypher engine, and " : ""}an arbitrary query can return person-level rows that the k threshold and the aggregate-only scope cannot protect. ` +
        "Rephrase the question like one of the templates.",
      suggestions: suggest(question),
      proxy,
    });
  }

  /** GET /api/nlq: the templates and how questions are answered (nothing in it changes while the server runs) */
  function list(): z.infer<typeof nlqTemplates> {
    return {
      templates: TEMPLATES.map(describeTemplate),
      count: TEMPLATES.length,
      backend: deps.proxyUrl
        ? { mode: "templates+proxy", proxyUrl: displayUrl(deps.proxyUrl) }
        : { mode: "templates", proxyUrl: null },
      policy: [
        "Templates answer first; free text is never executed as a query.",
        "Terms are resolved to SNOMED CT, ICD-10, RxNorm or LOINC codes in the ontology layer (l5) before anything runs.",
        "Answers are aggregates; your ODRL scope's k threshold applies to every count.",
      ],
    };
  }
  return {
    flushLog: () => log.flush(),

    list,

    async ask(
      body: Record<string, unknown>,
      user: Pick<SessionUser, "username" | "roles" | "participantDid"> &
        Partial<Pick<SessionUser, "organisation" | "patientId">>,
    ): Promise<NlqAnswer> {
      const started = performance.now();
      const question = typeof body.question === "string" ? body.question.trim() : "";
      if (!question)
        throw badRequest(
          'question is required: send {"question": "…"} (templateId is optional, default "auto")',
        );
      if (question.length > QUESTION_MAX)
        throw badRequest(`question must be at most ${QUESTION_MAX} characters`);
      const rawTemplate =
        body.templateId === undefined || body.templateId === null || body.templateId === ""
          ? "auto"
          : body.templateId;
      if (typeof rawTemplate !== "string")
        throw badRequest('templateId must be a string: "auto" or a template id');
      let candidates = TEMPLATES;
      if (rawTemplate !== "auto") {
        const t = TEMPLATES.find((x) => x.id === rawTemplate);
        if (!t)
          throw badRequest(`templateId must be "auto" or one of: ${TEMPLATES.map((x) => x.id).join(", ")}`);
        candidates = [t];
      }
      const [dict, scope] = await Promise.all([deps.concepts.get(), scopeFor(graph, user, deps.k)]);
      const { match, unresolved } = matchQuestion(question, dict, candidates);
      let answer: NlqAnswer;
      if (match) {
        answer = await runTemplate(match, scope, started, question, "templates");
      } else if (rawTemplate !== "auto") {
        const t = candidates[0];
        throw badRequest(
          unresolved.length
            ? `The question fits template "${t.id}", but no concept in the graph matches ${unresolved.map((u) => `"${u}"`).join(", ")}`
            : `The question does not fit template "${t.id}"; ask it like: "${t.examples[0]}"`,
        );
      } else if (deps.proxyUrl) {
        answer = await viaProxy(deps.proxyUrl, question, scope, started, dict);
      } else {
        answer = answerOf(question, scope, started, {
          reason: unresolved.length
            ? `A template fits the question, but no concept in the graph matches ${unresolved.map((u) => `"${u}"`).join(", ")}. Use a name or a code (SNOMED CT, ICD-10, RxNorm, LOINC).`
            : "No template matches this question and no language back end is configured (NLQ_PROXY_URL). Ask it like one of the suggestions.",
          suggestions: suggest(question),
          ...(unresolved.length ? { unresolvedTerms: unresolved } : {}),
        });
      }
      // what the caller may see of people (server/privacy): identifier columns never leave here
      const minimised = minimiseTable(viewerOf(user), answer);
      if (minimised.dropped.length)
        answer = {
          ...answer,
          columns: minimised.columns,
          rows: minimised.rows,
          suppressedCells: answer.suppressedCells.filter((c) => !minimised.dropped.includes(c.column)),
        };
      log.append({
        action: "nlq.ask",
        actor: user.username,
        target: answer.template?.id ?? (answer.backend === "proxy" ? "proxy" : "unmatched"),
        outcome: answer.executed
          ? `answered (${answer.rows.length} rows, ${answer.suppressedCells.length} suppressed)`
          : "not answered",
        kind: "insight",
      });
      return answer;
    },

    async backend(): Promise<z.infer<typeof nlqBackend>> {
      const base = {
        answersFirst: "templates" as const,
        templates: TEMPLATES.length,
        store: graph.kind,
      };
      if (!deps.proxyUrl) {
        return {
          ...base,
          mode: "templates",
          backend: "templates",
          proxy: null,
          note: "No NLQ_PROXY_URL: questions no template matches get suggestions instead of an answer.",
        };
      }
      const proxyUrl = deps.proxyUrl;
      const probe = await probes({ caller: EVERYONE, versions: [] }, async () => ({
        at: Date.now(),
        value: await probeProxy(proxyUrl, Math.min(deps.timeoutMs, 3000)),
      }));
      return {
        ...base,
        mode: "templates+proxy",
        backend: displayUrl(deps.proxyUrl),
        proxy: {
          url: displayUrl(deps.proxyUrl),
          ...probe.value,
          checkedAt: new Date(probe.at).toISOString(),
          timeoutMs: deps.timeoutMs,
        },
        note: "Templates answer first; the language back end is asked only when none matches, and only template-shaped read-only proposals are run.",
      };
    },
  };
}

export type NlqService = ReturnType<typeof createNlqService>;
