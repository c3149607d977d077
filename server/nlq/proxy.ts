/**
 * The optional language back end (NLQ_PROXY_URL), asked only when no template matches.
 *
 * Request: POST <url>, JSON `{ question, dialect: "cypher", schema, templates }` — the graph's
 * labels and relationship types per layer, and each template's id, example and Cypher, so a back
 * end can answer in a shape we can run. Expected answer: JSON `{ cypher, parameters?, explanation? }`
 * (`query` is accepted for `cypher`). Any failure — network error, the time-out of
 * UPSTREAM_TIMEOUT_MS, a non-2xx status, a body that is not JSON or has no query — is a
 * ProxyError, which the API answers with 502 `{ error }`.
 */
import { z } from "zod";
import { LAYER_LABELS } from "../graph";
import { ANSWER_TOO_LARGE, cappedText } from "../http/limits";
import type { Template } from "./templates";

export class ProxyError extends Error {
  override name = "ProxyError";
}

export const RELATIONSHIP_TYPES = [
  "CODED_BY",
  "MAPPED_TO",
  "MAPS_TO",
  "HAS_CONDITION",
  "HAS_ENCOUNTER",
  "HAS_OBSERVATION",
  "HAS_MEDICATION_REQUEST",
  "RECORDED_IN",
  "TREATS",
  "HAS_CONDITION_OCCURRENCE",
  "HAS_DRUG_EXPOSURE",
  "HAS_MEASUREMENT",
  "INCLUDES",
  "CONTAINS",
  "HAS_DISTRIBUTION",
  "HELD_BY",
  "OFFERS",
  "DESCRIBED_BY",
  "HAS_POLICY",
  "GOVERNS",
  "APPROVES",
];

const timedOut = (e: unknown) => ["TimeoutError", "AbortError"].includes((e as { name?: string }).name ?? "");

/** the URL without credentials, for answers and the back-end status */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return "(invalid URL)";
  }
}

export async function askProxy(url: string, question: string, templates: Template[], timeoutMs: number) {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        question,
        dialect: "cypher",
        schema: { layers: LAYER_LABELS, relationshipTypes: RELATIONSHIP_TYPES },
        templates: templates.map((t) => ({
          id: t.id,
          example: t.examples[0],
          parameters: t.params.map((p) => p.name),
          cypher: t.cypher,
        })),
      }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (e) {
    throw new ProxyError(
      timedOut(e) ? `no answer within ${timeoutMs} ms` : `could not be reached (${(e as Error).message})`,
    );
  }
  const text = await cappedText(res).catch((e: unknown) => {
    if ((e as { code?: string }).code === ANSWER_TOO_LARGE)
      throw new ProxyError("answered more than an answer may hold");
    return "";
  });
  if (!res.ok) throw new ProxyError(`answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProxyError("did not answer JSON");
  }
  const b = (typeof body === "object" && body ? body : {}) as Record<string, unknown>;
  const cypher = typeof b.cypher === "string" ? b.cypher : typeof b.query === "string" ? b.query : undefined;
  if (!cypher || !cypher.trim())
    throw new ProxyError("answered without a Cypher query (expected { cypher })");
  const parameters =
    typeof b.parameters === "object" && b.parameters && !Array.isArray(b.parameters)
      ? (b.parameters as Record<string, unknown>)
      : {};
  return {
    cypher,
    parameters,
    explanation: typeof b.explanation === "string" ? b.explanation.slice(0, 2000) : null,
  };
}

export const proxyProbe = z.object({
  reachable: z.boolean(),
  status: z.number().int().nullable(),
  latencyMs: z.number(),
  error: z.string().nullable(),
});

/** whether the back end answers HTTP at all (any status counts as reachable) */
export async function probeProxy(url: string, timeoutMs: number): Promise<z.infer<typeof proxyProbe>> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "GET",
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    await res.body?.cancel().catch(() => undefined);
    return {
      reachable: true,
      status: res.status,
      latencyMs: Math.round(performance.now() - started),
      error: null,
    };
  } catch (e) {
    return {
      reachable: false,
      status: null,
      latencyMs: Math.round(performance.now() - started),
      error: timedOut(e) ? `no answer within ${timeoutMs} ms` : (e as Error).message,
    };
  }
}
