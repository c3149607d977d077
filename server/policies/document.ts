/** An ODRL policy definition as the hub keeps it and the connector's management API carries it. */
export interface OdrlPolicyDocument {
  "@id": string;
  "@type": string;
  policy: {
    "@type": string;
    permission?: Record<string, unknown>[];
    prohibition?: Record<string, unknown>[];
    obligation?: Record<string, unknown>[];
    [k: string]: unknown;
  };
}
