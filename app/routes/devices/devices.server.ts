import type { SessionUser } from "../../../server/auth/user";
import { isApiError } from "../../../server/http/errors";
import { formFieldErrorsOf, type FormFieldError } from "../../../server/http/field-errors";
import { SELF_MEASURES } from "../../../server/patient-app/observations";
import type { Principal } from "../../../server/patient-app/service";
import type { Services } from "../../../server/services";
import { readForm } from "../../lib/api-errors.server";

/** Loaders and actions of the Devices page; they call the patient-app service, never /api. */

function principalOf(user: SessionUser): Principal & { patientId: string } {
  return { kind: "patient", patientId: user.patientId!, actor: user.username, user };
}

export async function loadDevicesView(services: Services, user: SessionUser) {
  const app = services.patientApp;
  const devices = await app.devices(user);
  const bundle = await app.observations(
    principalOf(user),
    new URL(`${services.config.publicUrl}/api/patient/observations?source=self`),
  );
  const selfMeasured = bundle.entry.map(({ resource: r }) => {
    const code = (r.code as { coding: { code?: string; display?: string }[] }).coding[0];
    const q = r.valueQuantity as { value?: number; unit?: string } | undefined;
    return {
      id: r.id,
      display: code?.display ?? code?.code ?? "Observation",
      code: code?.code ?? "",
      value: q?.value ?? null,
      unit: q?.unit ?? "",
      effectiveDateTime: String(r.effectiveDateTime ?? ""),
      device: (r.device as { display?: string } | undefined)?.display ?? null,
      interpretation:
        (r.interpretation as { coding: { code: string }[] }[] | undefined)?.[0]?.coding[0]?.code ?? null,
    };
  });
  return {
    devices,
    selfMeasured,
    lastSync: await app.lastSync(user.patientId!),
    measures: SELF_MEASURES.flatMap((m) =>
      Object.entries(m.units).map(([unit, u]) => ({
        value: `${m.loinc}|${unit}`,
        label: `${m.display} (${u.display})`,
      })),
    ),
  };
}

export type DevicesAction =
  | { intent: "pair"; ok: true; pairing: Awaited<ReturnType<Services["patientApp"]["createPairing"]>> }
  | { intent: "remove"; ok: true; message: string }
  | { intent: "sync"; ok: true; report: Awaited<ReturnType<Services["patientApp"]["sync"]>> }
  | { intent: "erase"; ok: true; report: Awaited<ReturnType<Services["patientApp"]["erase"]>> }
  | { intent: "measure"; ok: true; message: string }
  | { intent: string; ok: false; message: string; fields?: FormFieldError[] };

/** a refusal about one field of the measurement form */
const aboutField = (intent: string, field: string, message: string) => ({
  intent,
  ok: false as const,
  message,
  fields: [{ field, message }],
});

export async function devicesAction(
  request: Request,
  services: Services,
  user: SessionUser,
): Promise<DevicesAction> {
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  const app = services.patientApp;
  try {
    switch (intent) {
      case "pair":
        return { intent, ok: true, pairing: await app.createPairing(user) };
      case "remove": {
        const deviceId = String(form.get("deviceId") ?? "");
        const name = (await app.devices(user)).find((d) => d.deviceId === deviceId)?.name ?? "The device";
        await app.revokeDevice(user, deviceId);
        return {
          intent,
          ok: true,
          message: `${name} was removed. Its credential is revoked: it can no longer reach your record.`,
        };
      }
      case "sync":
        return { intent, ok: true, report: await app.sync(principalOf(user)) };
      case "erase":
        if (form.get("confirm") !== "yes")
          return { intent, ok: false, message: "Tick the box to confirm the erasure." };
        return { intent, ok: true, report: await app.erase(principalOf(user)) };
      case "measure": {
        const [code, unit] = String(form.get("measure") ?? "").split("|");
        const typed = String(form.get("value") ?? "").trim();
        const value = Number(typed.replace(",", "."));
        if (!typed || !Number.isFinite(value))
          return aboutField(intent, "value", "Enter the measured value as a number.");
        const when = String(form.get("effective") ?? "");
        const effective = when ? new Date(`${when}:00Z`) : new Date();
        // a day the calendar lacks (2026-02-30T10:00) is no time: Date would roll it over to March
        if (Number.isNaN(effective.getTime()) || !effective.toISOString().startsWith(when))
          return aboutField(intent, "effective", "The time of the measurement is not valid.");
        const created = await app.addObservations(principalOf(user), {
          resourceType: "Observation",
          status: "final",
          code: { coding: [{ system: "http://loinc.org", code }] },
          effectiveDateTime: effective.toISOString(),
          valueQuantity: {
            value,
            system: "http://unitsofmeasure.org",
            code: unit ?? "",
          },
        });
        return { intent, ok: true, message: `Added ${created.length} self-measured observation.` };
      }
      default:
        return { intent, ok: false, message: "Unknown action" };
    }
  } catch (e) {
    if (isApiError(e) && e.status < 500)
      return { intent, ok: false, message: e.message, fields: measurementFields(formFieldErrorsOf(e)) };
    throw e;
  }
}

/** the observation's fields (server/patient-app/observations.ts) as the measurement form's controls */
const FORM_FIELD: Record<string, string> = {
  valueQuantity: "value",
  code: "measure",
  effectiveDateTime: "effective",
};
function measurementFields(fields: FormFieldError[]): FormFieldError[] {
  return fields.map((f) => ({ ...f, field: FORM_FIELD[f.field] ?? f.field }));
}
