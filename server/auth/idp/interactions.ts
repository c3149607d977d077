import { createHash, timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type Provider from "oidc-provider";
import { errors, type Interaction } from "oidc-provider";
import { findPersona, type Persona } from "../personas";
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
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The persona whose password (= its username) was given, if any. */
export function authenticate(username: string, password: string): Persona | undefined {
  const persona = findPersona(username);
  const ok = sameSecret(password, persona?.username ?? "\u0000no-such-account");
  return persona && ok ? persona : undefined;
}

function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value.slice(0, MAX_FIELD_LENGTH) : "";
}

function sendHtml(res: Response, status: number, body: string): void {
  res.status(status).set("Cache-Control", "no-store").type("html").send(body);
}

/**
 * The embedded provider's own sign-in UI, mounted at `<mountPath>/interaction`:
 * - GET  /:uid        the sign-in form (or, for a consent prompt, an automatic first-party grant)
 * - POST /:uid        checks `username` / `password`; 401 and the form again when wrong
 * - POST /:uid/abort  ends the authorization request with `access_denied`
 */
export function interactionRoutes({
  provider,
  mountPath,
  restartUrl,
}: InteractionRoutesOptions): express.Router {
  const router = express.Router();
  const parseForm = express.urlencoded({ extended: false, limit: "8kb" });
  const actionFor = (uid: string) => `${mountPath}${INTERACTION_PATH}/${encodeURIComponent(uid)}`;

  /** The interaction of this browser, checked against the uid in the URL. */
  async function interactionOf(req: Request, res: Response): Promise<Interaction> {
    const interaction = await provider.interactionDetails(req, res);
    if (interaction.uid !== req.params.uid) throw new errors.SessionNotFound("interaction uid mismatch");
    return interaction;
  }

  async function finish(req: Request, res: Response, result: Parameters<Provider["interactionResult"]>[2]) {
    const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
    res.set("Cache-Control", "no-store").redirect(303, returnTo);
  }

  function loginPage(uid: string, username: string, error?: string): string {
    return renderLoginPage({
      action: actionFor(uid),
      abortAction: `${actionFor(uid)}/abort`,
      username,
      error,
    });
  }

  const handle =
    (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) => {
      fn(req, res).catch((err: unknown) => {
        if (err instanceof errors.SessionNotFound) {
          sendHtml(
            res,
            400,
            messagePage(
              "Sign-in request expired",
              "This sign-in request has expired or was already completed.",
              { href: restartUrl, text: "Start signing in again" },
            ),
          );
          return;
        }
        next(err);
      });
    };

  router.get(
    "/:uid",
    handle(async (req, res) => {
      const interaction = await interactionOf(req, res);
      if (interaction.prompt.name === "login") {
        const hint = interaction.params.login_hint;
        sendHtml(res, 200, loginPage(interaction.uid, typeof hint === "string" ? hint : ""));
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
    }),
  );

  router.post(
    "/:uid",
    parseForm,
    handle(async (req, res) => {
      const interaction = await interactionOf(req, res);
      const username = field(req.body, "username").trim();
      const persona = authenticate(username, field(req.body, "password"));
      if (!persona) {
        sendHtml(res, 401, loginPage(interaction.uid, username, "Unknown username or wrong password."));
        return;
      }
      await finish(req, res, { login: { accountId: persona.username, amr: ["pwd"] } });
    }),
  );

  router.post(
    "/:uid/abort",
    handle(async (req, res) => {
      await interactionOf(req, res);
      await finish(req, res, {
        error: "access_denied",
        error_description: "The user cancelled the sign-in.",
      });
    }),
  );

  return router;
}
