import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useRouteError } from "@remix-run/react";
import { PatientProfileView } from "../../components/patient/PatientProfileView";
import { consentAction, loadPatientView } from "../../lib/patient/profile.server";
import { requireRole } from "../../session.server";
import { PATIENT_ROLES } from "../../lib/access.server";
import { WhoLooked, type Look } from "../../components/patient/WhoLooked";
import { routeErrorText } from "../../components/route-kit/route-error";

export const meta: MetaFunction = () => [{ title: "My record · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, PATIENT_ROLES);
  if (!user.patientId) return { view: null, looks: [] as Look[] };
  const [view, entries] = await Promise.all([
    loadPatientView(context.services, user.patientId, user),
    context.services.accessLog.ofPatient(user.patientId, 50),
  ]);
  const looks: Look[] = entries.map(({ id, actor, action, outcome, timestamp }) => ({
    id,
    actor,
    action,
    outcome,
    timestamp,
  }));
  return { view, looks };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, PATIENT_ROLES);
  if (!user.patientId)
    return { ok: false, message: "Your account is not linked to a patient record.", studyId: "" };
  return consentAction(request, context.services, user.patientId, user);
}

export default function MyRecord() {
  const { view, looks } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  if (!view) {
    return (
      <section className="card" data-testid="my-record-unlinked">
        <h1>My record</h1>
        <p>Your account is not linked to a patient record yet. Ask your care provider to link it.</p>
      </section>
    );
  }
  return (
    <>
      <PatientProfileView view={view} result={result} />
      <WhoLooked looks={looks} />
    </>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  return (
    <section className="card error-page" role="alert" data-testid="my-record-error">
      <h1>Your record could not be shown</h1>
      <p>{routeErrorText(error, "Please try again later.")}</p>
    </section>
  );
}
