import { decodeJwt, type JWK } from "jose";
import type { GraphStore } from "../graph";
import { cappedJson, cappedText } from "../http/limits";
import type { KeyStore } from "./keys";
import { PID_VCTS, type PidIdentity } from "./pid";
import { issueSdJwtVc, presentSdJwtVc } from "./sd-jwt";

/**
 * The development wallet (server/eudi/README.md): what a phone's EUDI wallet does, run by the server
 * for the development wallet page so that the whole sign-in works on a fresh machine.
 * It talks only to this hub's own origin and the configured verifier (no requests elsewhere), reads
 * their answers no further than UPSTREAM_MAX_BYTES (`cappedText`), does not authenticate verifiers
 * (a real wallet does), and never runs in production.
 */

export interface DevIdentity extends PidIdentity {
  key: string;
  note: string;
}

export interface PresentResult {
  ok: boolean;
  status: number;
  verifier: string;
  disclosed: string[];
  redirectUri?: string;
  error?: string;
}

export class WalletError extends Error {
  readonly isWalletError = true as const;
  constructor(message: string) {
    super(message);
    this.name = "WalletError";
  }
}

/** Structural check: the Remix bundle and the server have separate copies of the class. */
export function isWalletError(e: unknown): e is WalletError {
  return e instanceof Error && (e as { isWalletError?: unknown }).isWalletError === true;
}

const PID_VALIDITY_S = 365 * 24 * 3600;
/** the German PID specimen person: a valid identity with no patient record here */
const SPECIMEN: DevIdentity = {
  key: "specimen",
  givenName: "Erika",
  familyName: "Mustermann",
  birthDate: "1964-08-12",
  note: "PID specimen person: has no patient record here (refused)",
};

export function createDevWallet(d: {
  keys: KeyStore;
  graph: GraphStore;
  issuer: () => Promise<{ iss: string; kid: string; privateKey: CryptoKey }>;
  publicUrl: string;
  runtime: { internalOrigin: string | undefined };
  /** further origins the wallet may talk to (an external verifier) */
  allowedOrigins?: string[];
}) {
  const publicOrigin = new URL(d.publicUrl).origin;
  const allowed = new Set([publicOrigin, ...(d.allowedOrigins ?? []).map((u) => new URL(u).origin)]);

  /** server-to-server: our own public address is reached on loopback */
  function reach(url: string): string {
    const u = new URL(url);
    if (!allowed.has(u.origin))
      throw new WalletError(
        `The development wallet only talks to this hub (${publicOrigin}), not to ${u.origin}`,
      );
    if (u.origin === publicOrigin && d.runtime.internalOrigin)
      return d.runtime.internalOrigin + u.pathname + u.search;
    return url;
  }

  const holder = () => d.keys.get("dev-wallet-holder");

  async function identities(): Promise<DevIdentity[]> {
    const out: DevIdentity[] = [];
    for (const [id, note] of [
      ["patient-000001", "patient1's record"],
      ["patient-000002", "patient2's record"],
    ] as const) {
      const n = await d.graph.getNode(id);
      const p = n?.properties;
      if (
        p &&
        typeof p.givenName === "string" &&
        typeof p.familyName === "string" &&
        typeof p.birthDate === "string"
      ) {
        out.push({ key: id, givenName: p.givenName, familyName: p.familyName, birthDate: p.birthDate, note });
      }
    }
    out.push(SPECIMEN);
    return out;
  }

  /** Issues a PID for an identity, bound to `holderJwk` (default: this wallet's key). */
  async function issuePid(identity: PidIdentity, holderJwk?: JWK, now?: Date): Promise<string> {
    const issuer = await d.issuer();
    return issueSdJwtVc({
      issuer: issuer.iss,
      kid: issuer.kid,
      privateKey: issuer.privateKey,
      holderJwk: holderJwk ?? (await holder()).publicJwk,
      vct: PID_VCTS[0],
      disclosable: {
        given_name: identity.givenName,
        family_name: identity.familyName,
        birthdate: identity.birthDate,
        nationalities: ["DE"],
        age_equal_or_over: { "18": true },
      },
      visible: { issuing_authority: "Development PID issuer (not a real authority)", issuing_country: "DE" },
      validForSeconds: PID_VALIDITY_S,
      now,
    });
  }

  async function inspect(link: string) {
    let url: URL;
    try {
      url = new URL(link.trim());
    } catch {
      throw new WalletError("This is not a wallet link (openid4vp://...)");
    }
    if (!["openid4vp:", "eudi-openid4vp:", "haip:"].includes(url.protocol))
      throw new WalletError("This is not an OpenID4VP wallet link");
    const q = url.searchParams;
    let params: Record<string, unknown>;
    const requestUri = q.get("request_uri");
    if (requestUri) {
      const res = await fetch(reach(requestUri), {
        headers: { Accept: "application/oauth-authz-req+jwt" },
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) {
        const body = (await cappedJson(res).catch(() => ({}))) as { error_description?: string };
        throw new WalletError(
          `The verifier refused the request: ${body.error_description ?? `HTTP ${res.status}`}`,
        );
      }
      params = decodeJwt((await cappedText(res)).trim()) as Record<string, unknown>;
    } else if (q.get("request")) {
      params = decodeJwt(q.get("request")!) as Record<string, unknown>;
    } else {
      params = Object.fromEntries(q.entries());
      if (typeof params.dcql_query === "string") params.dcql_query = JSON.parse(params.dcql_query);
    }
    const clientId = String(params.client_id ?? "");
    if (q.get("client_id") && q.get("client_id") !== clientId)
      throw new WalletError("The request's client_id differs from the link's");
    const responseUri = String(params.response_uri ?? "");
    if (!responseUri) throw new WalletError("The request has no response_uri");
    if (clientId.startsWith("redirect_uri:") && clientId.slice("redirect_uri:".length) !== responseUri) {
      throw new WalletError("The request's response_uri does not match its client_id");
    }
    const nonce = typeof params.nonce === "string" ? params.nonce : "";
    if (!nonce) throw new WalletError("The request has no nonce");
    const query = params.dcql_query as
      | {
          credentials?: {
            id: string;
            format: string;
            meta?: { vct_values?: string[] };
            claims?: { path: unknown[] }[];
          }[];
        }
      | undefined;
    const cred = query?.credentials?.find(
      (c) =>
        c.format === "dc+sd-jwt" &&
        (c.meta?.vct_values ?? []).some((v) => (PID_VCTS as readonly string[]).includes(v)),
    );
    if (!cred)
      throw new WalletError(
        "The verifier does not ask for a PID this wallet holds (dc+sd-jwt, urn:eudi:pid:1)",
      );
    const meta = params.client_metadata as { purpose?: string; client_name?: string } | undefined;
    return {
      clientId,
      responseUri,
      responseMode: String(params.response_mode ?? "direct_post"),
      nonce,
      state: typeof params.state === "string" ? params.state : undefined,
      credentialQueryId: cred.id,
      claims: (cred.claims ?? []).map((c) => String(c.path[0])),
      purpose: meta?.purpose,
      clientName: meta?.client_name,
    };
  }

  /** posts the wallet's answer (a presentation or an error response) to the request's response_uri */
  async function answer(req: Awaited<ReturnType<typeof inspect>>, fields: Record<string, string>) {
    const form = new URLSearchParams(fields);
    if (req.state) form.set("state", req.state);
    return fetch(reach(req.responseUri), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: form.toString(),
      signal: AbortSignal.timeout(10_000),
    });
  }

  async function present(link: string, identity: PidIdentity): Promise<PresentResult> {
    const req = await inspect(link);
    if (req.responseMode !== "direct_post")
      throw new WalletError(`The development wallet answers only by direct_post, not ${req.responseMode}`);
    const sdJwt = await issuePid(identity);
    const presentation = await presentSdJwtVc({
      sdJwt,
      disclose: req.claims,
      holderKey: (await holder()).privateKey,
      audience: req.clientId,
      nonce: req.nonce,
    });
    const res = await answer(req, { vp_token: JSON.stringify({ [req.credentialQueryId]: [presentation] }) });
    const body = (await cappedJson(res).catch(() => ({}))) as {
      redirect_uri?: string;
      error_description?: string;
      error?: string;
    };
    return {
      ok: res.ok,
      status: res.status,
      verifier: req.clientName ?? req.clientId,
      disclosed: req.claims,
      redirectUri: body.redirect_uri,
      error: res.ok ? undefined : (body.error_description ?? body.error ?? `HTTP ${res.status}`),
    };
  }

  /** Declines a request: the wallet's user said no (OpenID4VP error response). */
  async function decline(link: string): Promise<PresentResult> {
    const req = await inspect(link);
    const res = await answer(req, {
      error: "access_denied",
      error_description: "The user declined to share their identity",
    });
    return { ok: res.ok, status: res.status, verifier: req.clientName ?? req.clientId, disclosed: [] };
  }

  return {
    identities,
    issuePid,
    inspect,
    present,
    decline,
    /** the link of the wallet page for a request (same-device flow) */
    pageFor: (walletLink: string) => `/wallet?request=${encodeURIComponent(walletLink)}`,
  };
}
export type DevWallet = ReturnType<typeof createDevWallet>;
