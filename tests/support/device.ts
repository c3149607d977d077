/**
 * A simulated companion app on a phone: a real client of the hub's app API over HTTP. It makes an
 * ES256 key pair with WebCrypto (private key not extractable), signs attestations over the hub's
 * challenge nonce, and signs every request (`Authorization: Device <jwt>` with htm, htu, iat, jti
 * and the body hash). Tests can bend each part (another key, an old iat, a reused token) to check
 * that the hub refuses it.
 */

const enc = new TextEncoder();

export function b64u(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? enc.encode(data) : data;
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function sha256b64u(text: string): Promise<string> {
  return b64u(new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(text))));
}

/** A compact JWS signed with ECDSA P-256 / SHA-256 (WebCrypto's signature is already r||s, as JWS wants). */
export async function signJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: CryptoKey,
): Promise<string> {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  const sig = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, enc.encode(input)),
  );
  return `${input}.${b64u(sig)}`;
}

export interface DeviceKeys {
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
}

export async function newDeviceKeys(): Promise<DeviceKeys> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } };
}

export interface SignOptions {
  /** sign with this key instead of the device's own (a forged request) */
  key?: CryptoKey;
  /** seconds since the epoch */
  iat?: number;
  jti?: string;
  htm?: string;
  htu?: string;
  /** the body hash to claim (default: the real body's) */
  bh?: string;
  kid?: string;
}

export class SimulatedDevice {
  accountId: string | undefined;
  lastToken: string | undefined;

  private constructor(
    readonly baseUrl: string,
    readonly keys: DeviceKeys,
    readonly name: string,
  ) {}

  static async create(baseUrl: string, name = "Pixel 8 (test)"): Promise<SimulatedDevice> {
    return new SimulatedDevice(baseUrl.replace(/\/+$/, ""), await newDeviceKeys(), name);
  }

  async challenge(): Promise<string> {
    const res = await fetch(`${this.baseUrl}/api/app-accounts/challenge`, { method: "POST" });
    if (res.status !== 201) throw new Error(`challenge: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { nonce: string }).nonce;
  }

  /** An attestation over `nonce` (override any claim or the signing key to forge one). */
  async attestation(
    nonce: string,
    purpose: "app-account" | "pairing",
    extra: Record<string, unknown> = {},
    key?: CryptoKey,
  ): Promise<string> {
    return signJws(
      { alg: "ES256", typ: "app-attestation+jwt", jwk: this.keys.publicJwk },
      {
        nonce,
        aud: this.baseUrl,
        iat: Math.floor(Date.now() / 1000),
        purpose,
        deviceName: this.name,
        platform: "Android 15",
        ...extra,
      },
      key ?? this.keys.privateKey,
    );
  }

  async postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  }

  /** POST /api/app-accounts with a fresh challenge; remembers the account id. */
  async createAccount(): Promise<Response> {
    const res = await this.postJson("/api/app-accounts", {
      attestation: await this.attestation(await this.challenge(), "app-account"),
    });
    if (res.status === 201) this.accountId = ((await res.clone().json()) as { accountId: string }).accountId;
    return res;
  }

  /** POST /api/patient/app-devices: completes a pairing with the code shown to the patient. */
  async pair(code: string): Promise<Response> {
    const res = await this.postJson("/api/patient/app-devices", {
      code,
      attestation: await this.attestation(await this.challenge(), "pairing", { code }),
    });
    if (res.status === 201) this.accountId = ((await res.clone().json()) as { accountId: string }).accountId;
    return res;
  }

  /** The device-signed request token for one request. */
  async token(method: string, path: string, body = "", o: SignOptions = {}): Promise<string> {
    const url = new URL(`${this.baseUrl}${path}`);
    const payload: Record<string, unknown> = {
      htm: o.htm ?? method,
      htu: o.htu ?? `${url.origin}${url.pathname}`,
      iat: o.iat ?? Math.floor(Date.now() / 1000),
      jti: o.jti ?? crypto.randomUUID(),
    };
    if (body || o.bh) payload.bh = o.bh ?? (await sha256b64u(body));
    return signJws(
      { alg: "ES256", typ: "device-request+jwt", kid: o.kid ?? this.accountId },
      payload,
      o.key ?? this.keys.privateKey,
    );
  }

  /** A device-signed request. `o.reuse` sends the previous request's token again (a replay). */
  async request(
    method: string,
    path: string,
    body?: unknown,
    o: SignOptions & { reuse?: boolean } = {},
  ): Promise<Response> {
    const text = body === undefined ? "" : JSON.stringify(body);
    const token = o.reuse && this.lastToken ? this.lastToken : await this.token(method, path, text, o);
    this.lastToken = token;
    return fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Device ${token}`, ...(text ? { "content-type": "application/json" } : {}) },
      body: text || undefined,
    });
  }

  /** A self-measured observation as the app would post it. */
  static observation(code: string, value: number, unit: string, at = new Date()): Record<string, unknown> {
    return {
      resourceType: "Observation",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code }] },
      effectiveDateTime: at.toISOString(),
      valueQuantity: { value, system: "http://unitsofmeasure.org", code: unit },
    };
  }
}
