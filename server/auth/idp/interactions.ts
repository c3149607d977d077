import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import { errors, type Interaction } from "oidc-provider";
import { errorResponse, json } from "../../http/errors";
import { answerFailed, sendText, sendWebResponse } from "../../http/node-adapter";
import type { RateLimits } from "../../storage/rate-limits";
import { findPersona, type Persona } from "../personas";
import { sameSecret } from "../../config/same-secret";
import { BodyError, readForm, type FormFields } from "./body";
import { firstPartyGrant } from "./grants";
import { messagePage } from "./html";
import { renderLoginPage } from "./login-page";

/** Path of the interaction pages below the provider's mount path. */
export const INTERACTION_PATH = "/interaction";

const MAX_FIELD_LENGTH = 200;

interface InteractionRoutesOptions {
  provider: Provider;
  /** the path the provider is mounted on, e.g. "/idp" */
  mountPath: string;
  /** where a user whose sign-in request expired starts again */
  restartUrl: string;
  /** wrong passwords counted per username (decision 0045); the edge counts each post per client */
  rateLimits?: Pick<RateLimits, "take" | "giveBack">;
}

/** The persona whose password (= its username) was given, if any. */
export function authenticate(username: string, password: string): Persona | undefined {
  const persona = findPersona(username);
  const ok = sameSecret(password, persona?.username ?? "\u0000no-such-account");
  return persona && ok ? persona : undefined;
}

function field(body: FormFields, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value.slice(0, MAX_FIELD_LENGTH) : "";
}

const HTML = { "Content-Type": "text/html; charset=utf-8" };

function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.setHeader("Cache-Control", "no-store");
  sendText(res, status, body, HTML);
}

/** a refusal in the error model's JSON, as the /api's; a refused body's rest is discarded first (body.ts) */
const sendError = (res: ServerResponse, status: number, error: string) =>
  void sendWebResponse(res, json({ error }, status));

/**
 * The sign-in pages below `<mountPath>/interaction`: `subPath` is the request's path below that
 * (still URL-encoded, without the query), e.g. `/<uid>` or `/<uid>/abort`. Returns false, having done
 * nothing, for a request that is none of its routes; the caller passes that on to the provider.
 */
export type InteractionRoutes = (req: IncomingMessage, res: ServerResponse, subPath: string) => boolean;

// the routes as express matched them: case-insensitive, an optional trailing slash
const UID_ROUTE = /^\/([^/]+?)\/?$/i;
const ABORT_ROUTE = /^\/([^/]+?)\/abort\/?$/i;

/**
 * The embedded provider's own sign-in UI, at `<mountPath>/interaction`:
 * - GET  /:uid        the sign-in form (or, for a consent prompt, an automatic first-party grant); HEAD too
 * - POST /:uid        checks `username` / `password` (a URL-encoded form of at most 8 kB: 413 past it,
 *                     415 for a body of another type);
 *                     401 and the form again when wrong
 * - POST /:uid/abort  ends the authorization request with `access_denied`
 * As with the express router it replaces: OPTIONS of a route answers its methods in `Allow`, a uid that
 * does not URL-decode is a 400, and any other method or path is not its business. A refused form or
 * address is answered in the error model's JSON `{ error }`.
 */
export function interactionRoutes({
  provider,
  mountPath,
  restartUrl,
  rateLimits,
}: InteractionRoutesOptions): InteractionRoutes {
  const actionFor = (uid: string) => `${mountPath}${INTERACTION_PATH}/${encodeURIComponent(uid)}`;

  /** The interaction of this browser, checked against the uid in the URL. */
  async function interactionOf(req: IncomingMessage, res: ServerResponse, uid: string): Promise<Interaction> {
    const interaction = await provider.interactionDetails(req, res);
    if (interaction.uid !== uid) throw new errors.SessionNotFound("interaction uid mismatch");
    return interaction;
  }

  async function finish(
    req: IncomingMessage,
    res: ServerResponse,
    result: Parameters<Provider["interactionResult"]>[2],
  ): Promise<void> {
    const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
    res.setHeader("Location", returnTo);
    res.setHeader("Cache-Control", "no-store");
    sendText(res, 303, `${STATUS_CODES[303]}. Redirecting to ${returnTo}`);
  }

  async function show(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const interaction = await interactionOf(req, res, uid);
    if (interaction.prompt.name === "login") {
      const hint = interaction.params.login_hint;
      sendHtml(res, 200, renderLoginPage(actionFor(interaction.uid), typeof hint === "string" ? hint : ""));
      return;
    }
    // Any other prompt is consent: the app is first-party, so grant what it asked for.
    const accountId = interaction.session?.accountId;
    if (!accountId) throw new errors.SessionNotFound("interaction without an account");
    const details = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
    };
    const grant = await firstPartyGrant(provider, {
      accountId,
      clientId: String(interaction.params.client_id),
      grantId: interaction.grantId,
      scopes: details.missingOIDCScope ?? [],
      claims: details.missingOIDCClaims ?? [],
    });
    await finish(req, res, { consent: { grantId: grant.jti } });
  }

  async function submit(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const body = await readForm(req);
    const interaction = await interactionOf(req, res, uid);
    const username = field(body, "username").trim();
    // a username with too many wrong passwords is not tried again before its window ends, whatever the client
    const userKey = username.toLowerCase();
    const formAgain = (status: number, error: string) =>
      sendHtml(res, status, renderLoginPage(actionFor(interaction.uid), username, error));
    // the point is taken before the password is checked, in one step of the store, so that attempts
    // sent at once (or to several instances) cannot all pass a look at the count; a right one gives it back
    const wait = await rateLimits?.take("passwordUser", userKey);
    if (wait !== undefined) {
      res.setHeader("Retry-After", String(wait));
      return formAgain(429, `Too many wrong passwords for this username: try again in ${wait} s.`);
    }
    const persona = authenticate(username, field(body, "password"));
    if (!persona) return formAgain(401, "Unknown username or wrong password.");
    await rateLimits?.giveBack("passwordUser", userKey);
    await finish(req, res, { login: { accountId: persona.username, amr: ["pwd"] } });
  }

  async function abort(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    await interactionOf(req, res, uid);
    await finish(req, res, {
      error: "access_denied",
      error_description: "The user cancelled the sign-in.",
    });
  }

  function run(
    action: (req: IncomingMessage, res: ServerResponse, uid: string) => Promise<void>,
    req: IncomingMessage,
    res: ServerResponse,
    uid: string,
  ): void {
    action(req, res, uid).catch((err: unknown) => {
      if (res.headersSent) answerFailed(res, "identity provider", err);
      else if (err instanceof errors.SessionNotFound)
        sendHtml(
          res,
          400,
          messagePage(
            "Sign-in request expired",
            "This sign-in request has expired or was already completed.",
            { href: restartUrl, text: "Start signing in again" },
          ),
        );
      else if (err instanceof BodyError) sendError(res, err.status, err.message);
      else void sendWebResponse(res, errorResponse(err)); // the API's 500 (or a store's 503), logged once
    });
  }

  return (req, res, subPath) => {
    const uidMatch = UID_ROUTE.exec(subPath);
    const abortMatch = uidMatch ? null : ABORT_ROUTE.exec(subPath);
    const encoded = (uidMatch ?? abortMatch)?.[1];
    if (encoded === undefined) return false;
    let uid: string;
    try {
      uid = decodeURIComponent(encoded);
    } catch {
      // whatever the method, as express failed the route's parameter
      sendError(res, 400, "The sign-in address is malformed: its request id is not valid URL encoding");
      return true;
    }
    const method = req.method ?? "GET";
    if (method === "OPTIONS") {
      const allow = uidMatch ? "GET,HEAD,POST" : "POST";
      res.setHeader("Allow", allow);
      sendText(res, 200, allow, HTML);
      return true;
    }
    if (uidMatch && (method === "GET" || method === "HEAD")) run(show, req, res, uid);
    else if (method === "POST") run(uidMatch ? submit : abort, req, res, uid);
    else return false;
    return true;
  };
}
