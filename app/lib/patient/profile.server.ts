import type { AppLoadContext } from "@remix-run/node";
import { STATUS_CODES } from "node:http";
import { ORGANISATIONS } from "../../../server/auth/personas";
import type { SessionUser } from "../../../server/auth/user";
import { isApiError } from "../../../server/http/errors";
import { shownInPlace, type InPlace, readForm } from "../api-errors.server";
import { buildTimeline, dateOf, toItem, valueText, type Item } from "./timeline";
import { formFieldErrorsOf, type FormFieldError } from "../../../server/http/field-errors";
import { pick } from "../pick";

/**
 * Shared by /patients/:id and /my-record: the loader data of the profile view and the consent
 * action. Both call the patient service the API handlers use (never our own /api over HTTP).
 */

type Services = AppLoadContext["services"];

const orgName = (slugOrDid: string | null) =>
  slugOrDid
    ? (ORGANISATIONS.find((o) => o.slug === slugOrDid || o.did === slugOrDid)?.displayName ?? slugOrDid)
    : null;

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/** the research programmes with what the graph knows around each data permit (dataset, permit number) */
async function programmes(services: Services, patientId: string, user: SessionUser) {
  const list = await services.patients.research(patientId, user);
  const { graph } = services;
  const included = new Set(
    (await graph.relationships({ id: patientId, types: ["INCLUDES"], direction: "in", limit: 200 })).map(
      (r) => r.node.id,
    ),
  );
  return Promise.all(
    list.map(async (p) => {
      let permitNumber: string | null = null;
      let legalBasis: string | null = null;
      let dataset: { id: string; title: string } | null = null;
      try {
        const approval = await graph.getNode(p.studyId);
        permitNumber = str(approval?.properties.permitNumber);
        legalBasis = str(approval?.properties.legalBasis);
        // the permit approves a contract, which governs a product, which a dataset describes
        const next = async (id: string | undefined, type: string) =>
          id
            ? (await graph.relationships({ id, types: [type], direction: "out", limit: 1 }))[0]?.node
            : undefined;
        const contract = await next(p.studyId, "APPROVES");
        const product = await next(contract?.id, "GOVERNS");
        const ds = await next(product?.id, "DESCRIBED_BY");
        if (ds) dataset = { id: ds.id, title: str(ds.properties.title) ?? ds.id };
      } catch {
        // enrichment is optional: the programme list itself comes from the service
      }
      return {
        ...p,
        sponsorName: orgName(p.sponsor),
        permitNumber,
        legalBasis,
        dataset,
        includesMe: dataset ? included.has(dataset.id) : false,
      };
    }),
  );
}

export type Programme = Awaited<ReturnType<typeof programmes>>[number];

/** loads everything the profile view shows; service errors become error responses for the boundary */
export async function loadPatientView(services: Services, patientId: string, user: SessionUser) {
  try {
    const [profile, insights, research] = await Promise.all([
      // the page is one look at the record, on record (the patient's own look is not)
      services.patients.profile(patientId, user, "patient.page.read"),
      services.patients.insights(patientId, user),
      programmes(services, patientId, user),
    ]);
    const obs = profile.observations as Item[];
    // the latest value per code, by the observation's own date
    const latest = new Map<string, Item>();
    for (const o of obs) {
      const key = String(o.code ?? o.display ?? o.id);
      const prev = latest.get(key);
      if (!prev || (dateOf(o, "observation") ?? "") > (dateOf(prev, "observation") ?? "")) latest.set(key, o);
    }
    const isSelf = !!user.patientId && user.patientId === profile.patient.id;
    return {
      patient: profile.patient,
      ...pick(insights, "age counts firstEncounter lastEncounter"),
      activeConditions: (profile.conditions as Item[])
        .filter((c) => (c.clinicalStatus ?? "active") === "active")
        .map((c) => toItem("condition", c)),
      currentMedications: (profile.medications as Item[])
        .filter((m) => (m.status ?? "active") === "active")
        .map((m) => toItem("medication", m)),
      latestObservations: [...latest.values()]
        .map((o) => ({
          ...toItem("observation", o),
          value: valueText(o),
          low: typeof o.referenceRangeLow === "number" ? o.referenceRangeLow : null,
          high: typeof o.referenceRangeHigh === "number" ? o.referenceRangeHigh : null,
          interpretation: str(o.interpretation),
        }))
        .sort((a, b) => a.title.localeCompare(b.title, "en")),
      timeline: buildTimeline(profile as Parameters<typeof buildTimeline>[0]),
      programmes: research,
      /** consent buttons: only for the patient themselves (the service also lets operators change consent) */
      canConsent: isSelf && user.roles.includes("PATIENT"),
      isSelf,
      /** the day a permit's validity is compared with (YYYY-MM-DD, UTC), read here rather than in the view */
      today: new Date().toISOString().slice(0, 10),
    };
  } catch (e) {
    if (isApiError(e) && [400, 403, 404].includes(e.status)) {
      throw new Response(e.message, { status: e.status, statusText: STATUS_CODES[e.status] });
    }
    throw e;
  }
}

export type PatientView = Awaited<ReturnType<typeof loadPatientView>>;

export interface ConsentResult {
  ok: boolean;
  message: string;
  studyId: string;
  consentId?: string;
  /** the fields the service named as wrong */
  fields?: FormFieldError[];
}

/** the consent form's action: intent grant | revoke, studyId */
export async function consentAction(
  request: Request,
  services: Services,
  patientId: string,
  user: SessionUser,
): Promise<InPlace<ConsentResult>> {
  const form = await readForm(request);
  const intent = form.get("intent");
  const studyId = String(form.get("studyId") ?? "");
  const title = String(form.get("title") ?? studyId);
  // route table: POST/DELETE /api/patient/research need PATIENT or CONNECTOR_ADMIN
  if (!user.roles.includes("PATIENT") && !user.roles.includes("CONNECTOR_ADMIN")) {
    return shownInPlace(
      { ok: false, message: "Only the patient can change their research consent.", studyId },
      403,
    );
  }
  try {
    if (intent === "grant") {
      const { consentId } = await services.patients.grantConsent({ patientId, studyId }, user);
      return { ok: true, message: `Consent granted for “${title}”.`, studyId, consentId };
    }
    if (intent === "revoke") {
      await services.patients.revokeConsent(patientId, studyId, user);
      return {
        ok: true,
        message: `Consent for “${title}” revoked. The programme can no longer use your data for new analyses.`,
        studyId,
      };
    }
    return { ok: false, message: "Unknown action.", studyId };
  } catch (e) {
    if (isApiError(e) && [400, 403, 404, 409].includes(e.status))
      return shownInPlace({ ok: false, message: e.message, studyId, fields: formFieldErrorsOf(e) }, e.status);
    throw e;
  }
}
