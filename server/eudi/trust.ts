import { importJWK, type JWK } from "jose";
import { z } from "zod";
import { createKept, EVERYONE } from "../http/kept";
import { cappedJson } from "../http/limits";

/**
 * The trusted list of PID issuers. Two sources:
 *  - the development PID issuer (only while EUDI_DEV_WALLET is on, never in production);
 *  - the issuers named in EUDI_TRUSTED_ISSUERS, whose keys come from their SD-JWT VC issuer
 *    metadata (`/.well-known/jwt-vc-issuer` inserted between host and path), fetched and cached.
 * An issuer not on the list, or a key id the issuer does not publish, resolves to null: refused.
 */

const jwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });
const metadataSchema = z.object({
  issuer: z.url(),
  jwks: jwksSchema.optional(),
  jwks_uri: z.url().optional(),
});

const KEYS_KEPT_MS = 10 * 60 * 1000;
/** a published key without `alg`: the algorithm its curve is for (RFC 7518 section 3.4) */
const ALG_OF_CURVE: Record<string, string> = { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" };

function metadataUrl(issuer: string): string {
  const u = new URL(issuer);
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/+$/, "");
  return `${u.origin}/.well-known/jwt-vc-issuer${path}`;
}

export function createIssuerTrust(o: {
  dev?: () => Promise<{ iss: string; kid: string; publicKey: CryptoKey }>;
  trustedIssuers: readonly string[];
  timeoutMs: number;
}) {
  // each issuer's keys for KEYS_KEPT_MS: one fetch in flight per issuer, a failed one not kept
  const kept = createKept<JWK[]>({ max: 100, ttlOf: () => KEYS_KEPT_MS });
  const keysOf = (issuer: string) =>
    kept({ caller: EVERYONE, versions: [], args: [issuer] }, () => fetchKeys(issuer));

  async function fetchKeys(issuer: string): Promise<JWK[]> {
    const get = async (url: string) => {
      const res = await fetch(url, {
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      return await cappedJson(res);
    };
    const meta = metadataSchema.parse(await get(metadataUrl(issuer)));
    if (meta.issuer.replace(/\/+$/, "") !== issuer)
      throw new Error(`issuer metadata names ${meta.issuer}, not ${issuer}`);
    const jwks = meta.jwks ?? (meta.jwks_uri ? jwksSchema.parse(await get(meta.jwks_uri)) : undefined);
    if (!jwks) throw new Error("issuer metadata has neither jwks nor jwks_uri");
    return jwks.keys as JWK[];
  }

  return {
    async resolve(iss: string, kid: string | undefined): Promise<CryptoKey | null> {
      if (o.dev) {
        const dev = await o.dev();
        if (iss === dev.iss) return kid === undefined || kid === dev.kid ? dev.publicKey : null;
      }
      const issuer = iss.replace(/\/+$/, "");
      if (!o.trustedIssuers.includes(issuer)) return null;
      let keys: JWK[];
      try {
        keys = await keysOf(issuer);
      } catch {
        return null;
      }
      const candidates = keys.filter(
        (k) => (kid ? k.kid === kid : true) && (k.use === undefined || k.use === "sig"),
      );
      if (candidates.length !== 1) return null;
      try {
        const { d: _private, ...pub } = candidates[0];
        return (await importJWK(
          pub,
          candidates[0].alg ?? ALG_OF_CURVE[String(pub.crv)] ?? "ES256",
        )) as CryptoKey;
      } catch {
        return null;
      }
    },
  };
}
