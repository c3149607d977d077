/**
 * Test helpers for the embedded identity provider: a plain node:http server on 127.0.0.1 with the
 * provider answering /idp, and a minimal browser (cookie jar + manual redirects) over plain fetch.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { loadConfig } from "../../server/config";
import type { Relational } from "../../server/storage/relational";
import { BodyError, readBody } from "../../server/auth/idp/body";
import {
  createIdentityProvider,
  IDP_CLIENT_ID,
  IDP_MOUNT_PATH,
  type IdentityProvider,
} from "../../server/auth/idp/provider";
import { idpClientSecret } from "../../server/auth/idp/keys";

export interface RunningIdp {
  /** where it listens: http://127.0.0.1:<port> */
  url: string;
  publicUrl: string;
  issuer: string;
  port: number;
  clientSecret: string;
  idp: IdentityProvider;
  stop(): Promise<void>;
}

export interface StartIdpOptions {
  /**
   * The provider's public address when it is reached through a proxy (e.g. `${proxy.url}/idp`): the
   * issuer identifier, and the host its endpoints are announced on (every request is treated as
   * forwarded from there).
   */
  issuer?: string;
  /** the client application's PUBLIC_URL (redirect and post-logout URIs); default the provider's own address */
  appUrl?: string;
  /** the wrong-password counts (server/storage/rate-limits.ts); default none */
  rateLimits?: Parameters<typeof createIdentityProvider>[0]["rateLimits"];
}

const JSON_LIMIT = 100 * 1024;

function sendText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/**
 * An app-wide JSON body parser ahead of the provider, as `express.json()` was here: every request gets
 * a `req.body` (`{}`), an application/json body is read and parsed into it. It does not disturb the
 * provider (it reads no other bodies; the provider falls back to `req.body` for one it finds read).
 * Returns false when it has answered the request (a bad or too large JSON body).
 */
async function parseJson(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<boolean> {
  req.body ??= {};
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const hasBody =
    req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined;
  if (type !== "application/json" || !hasBody) return true;
  try {
    const text = (await readBody(req, JSON_LIMIT)).toString("utf8");
    if (text.trim() === "") return true;
    if (!/^\s*[[{]/.test(text)) throw new BodyError(400, "JSON body is not an object or array");
    req.body = JSON.parse(text) as unknown;
    return true;
  } catch (err) {
    sendText(
      res,
      err instanceof BodyError ? err.status : 400,
      err instanceof Error ? err.message : "Bad Request",
    );
    return false;
  }
}

/**
 * Starts node:http + provider on 127.0.0.1 (port 0 = any free port); PUBLIC_URL is that address unless
 * `options.appUrl` names the client application's.
 */
export async function startIdp(
  rel: Relational,
  dataDir: string,
  port = 0,
  options: StartIdpOptions = {},
): Promise<RunningIdp> {
  const announced = options.issuer ? new URL(options.issuer) : undefined;
  /** the provider once it is created (it needs the port for its address) */
  const mounted: { idp?: IdentityProvider } = {};
  const server: Server = createServer((req, res) => {
    if (announced) {
      req.headers["x-forwarded-host"] = announced.host;
      req.headers["x-forwarded-proto"] = announced.protocol.replace(":", "");
    }
    // No keep-alive: fetch would otherwise reuse a pooled socket of a stopped server after a restart.
    res.setHeader("Connection", "close");
    void parseJson(req, res).then((go) => {
      if (!go) return;
      const pathname = (req.url ?? "").split("?")[0];
      if (mounted.idp && (pathname === IDP_MOUNT_PATH || pathname.startsWith(`${IDP_MOUNT_PATH}/`)))
        mounted.idp.handle(req, res);
      else sendText(res, 404, `Cannot ${req.method} ${pathname}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  const publicUrl = options.appUrl ?? `http://127.0.0.1:${actualPort}`;
  const config = loadConfig({ NODE_ENV: "test", PUBLIC_URL: publicUrl, DATA_DIR: dataDir });
  const clientSecret = await idpClientSecret(rel);
  const idp = await createIdentityProvider({
    config,
    rel,
    clientId: IDP_CLIENT_ID,
    clientSecret,
    issuer: options.issuer,
    rateLimits: options.rateLimits,
  });
  mounted.idp = idp;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    publicUrl,
    issuer: idp.issuer,
    port: actualPort,
    clientSecret,
    idp,
    async stop() {
      await idp.close();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/** Just enough of a browser's cookie handling: name, value, path, deletion. One host only. */
export class CookieJar {
  private cookies: StoredCookie[] = [];

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = "/";
      let expired = value === "";
      for (const attribute of attributes) {
        const [key, val = ""] = attribute.split("=");
        if (key.toLowerCase() === "path") path = val;
        if (key.toLowerCase() === "expires" && Date.parse(val) <= Date.now()) expired = true;
        if (key.toLowerCase() === "max-age" && Number(val) <= 0) expired = true;
      }
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
      if (!expired) this.cookies.push({ name, value, path });
    }
  }

  header(url: string): string {
    const { pathname } = new URL(url);
    return this.cookies
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  names(): string[] {
    return this.cookies.map((c) => c.name);
  }

  clone(): CookieJar {
    const copy = new CookieJar();
    copy.cookies = this.cookies.map((c) => ({ ...c }));
    return copy;
  }
}

/** One request as a browser would send it, without following redirects. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set("cookie", cookie);
  const response = await fetch(url, { ...init, headers, redirect: "manual" });
  jar.store(response);
  return response;
}

/** Follows redirects until one leaves the provider (e.g. to the client's redirect_uri) or a page answers. */
export async function follow(
  jar: CookieJar,
  url: string,
  stopAt: string,
  init: RequestInit = {},
): Promise<{ response: Response; url: string }> {
  let current = url;
  let response = await browse(jar, current, init);
  for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
    current = new URL(response.headers.get("location") ?? "", current).href;
    if (current.startsWith(stopAt)) return { response, url: current };
    response = await browse(jar, current);
  }
  return { response, url: current };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function formBody(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}
