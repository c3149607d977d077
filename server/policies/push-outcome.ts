import { isUpstreamError } from "../dataspace/upstream-http";
import { definitionBody, fromConnector, type OdrlPolicyDocument } from "./policy-document";

/**
 * When a push of a policy definition fails, the connector may hold it all the same: its answer was
 * lost (the hub's time-out passed first, or the connection was cut; docs/reliability.md). So after such
 * a failure, and on a 409 for a policy the hub's registry does not hold, the create reads the
 * connector's definitions back (one more call with its own UPSTREAM_TIMEOUT_MS): the same document
 * there means the push succeeded (the hub records it, in sync); anything else keeps the failure.
 */

/** a failure after which the connector may have stored the definition (not a refusal it answered) */
export function mayHaveLanded(e: unknown): boolean {
  if (!isUpstreamError(e)) return false;
  return e.failure === "timeout" || e.failure === "unreachable" || e.failure === "invalid-response";
}

const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

/** whether the connector's definitions hold this document as the hub would have pushed it */
export function holdsSameDefinition(
  definitions: Record<string, unknown>[],
  document: OdrlPolicyDocument,
): boolean {
  const found = definitions.find((d) => d["@id"] === document["@id"]);
  if (!found) return false;
  const pushed = fromConnector(definitionBody(document) as unknown as Record<string, unknown>);
  return JSON.stringify(canonical(fromConnector(found))) === JSON.stringify(canonical(pushed));
}
