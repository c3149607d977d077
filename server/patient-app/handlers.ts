import { json } from "../http/errors";
import { parsedQuery, sentBody } from "../http/contract";
import type { HandlerContext, HandlerMap } from "../http/handler";
import { observationQuery } from "./contract";
import type { PatientAppService, Principal } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface PatientAppServices {
  patientApp: PatientAppService;
}

/**
 * /api/app-accounts*, /api/patient/app*, /api/patient/observations, /api/patient/ehr-sync.
 * "patient-or-device" routes: the dispatcher lets through a PATIENT session or any Authorization
 * header; the device-signed request is verified here (service.authenticate) before anything else.
 */

/** the body as sent (its bytes are hashed by the device credential) */
const bodyText = (ctx: HandlerContext<PatientAppServices>) => ctx.request.clone().text();

/** the caller of a request whose body is `text`: a patient session or a paired device (unpaired: 403) */
const paired = async (ctx: HandlerContext<PatientAppServices>, text = "") =>
  (await ctx.services.patientApp.authenticate(ctx, text)) as Principal & { patientId: string };

export const patientAppHandlers: HandlerMap<PatientAppServices> = {
  "POST /api/app-accounts/challenge": async ({ services }) =>
    json(await services.patientApp.challenge(), 201),
  "POST /api/app-accounts": async (ctx) =>
    json(await ctx.services.patientApp.createAccount(sentBody(ctx)), 201),

  "POST /api/patient/app-pairing": async ({ services, user }) =>
    json(await services.patientApp.createPairing(user!), 201),
  "GET /api/patient/app-pairing/:pairingId": async ({ services, user, params }) =>
    json(await services.patientApp.pairing(user!, params.pairingId)),

  "GET /api/patient/app-devices": async ({ services, user, input }) =>
    json({
      devices: await services.patientApp.devices(user!, {
        includeRemoved: input.query.include === "removed",
      }),
    }),
  "POST /api/patient/app-devices": async (ctx) =>
    json(await ctx.services.patientApp.completePairing(sentBody(ctx)), 201),
  "DELETE /api/patient/app-devices/:deviceId": async ({ services, user, params }) =>
    json(await services.patientApp.revokeDevice(user!, params.deviceId)),

  "GET /api/patient/app/record": async (ctx) => json(await ctx.services.patientApp.record(await paired(ctx))),
  "POST /api/patient/app/record": async (ctx) => {
    const who = await paired(ctx, await bodyText(ctx));
    const created = await ctx.services.patientApp.addObservations(who, sentBody(ctx));
    return json({ created: created.length, observations: created }, 201);
  },
  "GET /api/patient/observations": async (ctx) =>
    json(
      await ctx.services.patientApp.observations(
        await paired(ctx),
        ctx.url,
        parsedQuery(ctx, observationQuery),
        "patient-app.observations.read",
      ),
    ),
  "POST /api/patient/ehr-sync": async (ctx) =>
    json(await ctx.services.patientApp.sync(await paired(ctx, await bodyText(ctx)))),
  "DELETE /api/patient/app/account": async (ctx) => {
    const text = await bodyText(ctx);
    const who = await ctx.services.patientApp.authenticate(ctx, text, { allowUnpaired: true });
    return json(await ctx.services.patientApp.erase(who));
  },
};
