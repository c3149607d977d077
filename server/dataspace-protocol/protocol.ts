/**
 * Wire constants of the dataspace protocols this module speaks, and small JSON-LD helpers.
 * Shared by the upstream clients and by the embedded local dataspace, so both sides agree.
 */

/**
 * JSON-LD context of the EDC connector management API that the hub writes: `management/v2`, the
 * context of EDC's v4beta API and the only one the participant-scoped API's request schemas accept.
 */
export const MANAGEMENT_CONTEXT = "https://w3id.org/edc/connector/management/v2";
/** The EDC vocabulary namespace; compacted responses use the `edc:` prefix for it. */
export const EDC_NAMESPACE = "https://w3id.org/edc/v0.0.1/ns/";
export const EDC_PREFIX = "edc";
export const ODRL_CONTEXT = "http://www.w3.org/ns/odrl.jsonld";
export const ODRL_NAMESPACE = "http://www.w3.org/ns/odrl/2/";
export const DCAT_NAMESPACE = "http://www.w3.org/ns/dcat#";
export const DCT_NAMESPACE = "http://purl.org/dc/terms/";
export const DSPACE_NAMESPACE = "https://w3id.org/dspace/2025/1/";
export const DSPACE_CONTEXT = "https://w3id.org/dspace/2025/1/context.jsonld";

/** Dataspace Protocol version 2025-1 (spec section 9). */
export const DSP_VERSION = "2025-1";
export const DSP_PROTOCOL = "dataspace-protocol-http:2025-1";

/** Transfer types (spec section 2, TransferRequest). */
export const TRANSFER_TYPES = ["HttpData-PULL", "HttpData-PUSH"] as const;
export const DEFAULT_TRANSFER_TYPE = "HttpData-PULL";

/** Endpoint type of an HTTP endpoint data reference (EDR), as EDC writes it. */
export const HTTP_ENDPOINT_TYPE = "https://w3id.org/idsa/v4.1/HTTP";

/** The JSON-LD context block the embedded dataspace puts on compacted management responses. */
export const COMPACT_CONTEXT = {
  "@vocab": EDC_NAMESPACE,
  edc: EDC_NAMESPACE,
  odrl: ODRL_NAMESPACE,
  dcat: DCAT_NAMESPACE,
  dct: DCT_NAMESPACE,
  dspace: DSPACE_NAMESPACE,
} as const;

export interface QuerySpec {
  "@context": string[];
  "@type": "QuerySpec";
  offset: number;
  limit: number;
  sortOrder?: "ASC" | "DESC";
  sortField?: string;
  filterExpression?: Criterion[];
}

export interface Criterion {
  "@type"?: "Criterion";
  operandLeft: string;
  operator: string;
  operandRight: unknown;
}

/** the id of the contract definition by which the hub offers one asset (decisions 0108, 0111) */
export const offerDefinitionId = (assetId: string) => `${assetId}-offer`;

/** the assets selector of such an offer: the asset picked by its id */
export const offerSelector = (assetId: string): Criterion[] => [
  { "@type": "Criterion", operandLeft: `${EDC_NAMESPACE}id`, operator: "=", operandRight: assetId },
];

export function querySpec(options: Partial<Omit<QuerySpec, "@context" | "@type">> = {}): QuerySpec {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "QuerySpec",
    offset: options.offset ?? 0,
    limit: options.limit ?? 200,
    ...(options.sortOrder ? { sortOrder: options.sortOrder } : {}),
    ...(options.sortField ? { sortField: options.sortField } : {}),
    ...(options.filterExpression ? { filterExpression: options.filterExpression } : {}),
  };
}

/**
 * Reads a term from a compacted JSON-LD object whichever way the sender wrote it: plain
 * (`name`), prefixed (`edc:name`) or expanded (`https://w3id.org/edc/v0.0.1/ns/name`).
 * Expanded values of the form `[{"@value": x}]` are unwrapped.
 */
export function term(
  obj: Record<string, unknown> | undefined,
  name: string,
  namespace = EDC_NAMESPACE,
  prefix = EDC_PREFIX,
): unknown {
  if (!obj) return undefined;
  for (const key of [name, `${prefix}:${name}`, `${namespace}${name}`]) {
    if (key in obj) return unwrapValue(obj[key]);
  }
  return undefined;
}

function unwrapValue(v: unknown): unknown {
  if (Array.isArray(v) && v.length === 1) return unwrapValue(v[0]);
  if (v && typeof v === "object" && "@value" in (v as Record<string, unknown>))
    return (v as Record<string, unknown>)["@value"];
  return v;
}

export function termString(
  obj: Record<string, unknown> | undefined,
  name: string,
  namespace?: string,
  prefix?: string,
): string | undefined {
  const v = term(obj, name, namespace, prefix);
  return typeof v === "string" ? v : undefined;
}

/** The prefix a compacted document uses for the EDC namespace (`edc` unless its context says otherwise). */
export function edcPrefixOf(context: unknown): string {
  const contexts = Array.isArray(context) ? context : [context];
  for (const c of contexts) {
    if (c && typeof c === "object") {
      for (const [k, v] of Object.entries(c as Record<string, unknown>)) {
        if (!k.startsWith("@") && v === EDC_NAMESPACE) return k;
      }
    }
  }
  return EDC_PREFIX;
}

/** The URL-decoded text, or the text as given when it is not a valid escape. */
export function uriDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `as array`: JSON-LD lets a single value stand for a one-element array. */
export function asArray<T>(v: T | T[] | undefined | null): T[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}
