import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useActionData, useLoaderData, useRouteError } from "@remix-run/react";
import { requirePatientStaff } from "../../lib/patient/access.server";
import { PatientProfileView } from "../../components/patient/PatientProfileView";
import { consentAction, loadPatientView } from "../../lib/patient/profile.server";
import { requireUser } from "../../session.server";
import { AppLink } from "../../components/ui/app-link";
import { routeErrorText } from "../../components/route-kit/route-error";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.view.patient.name ?? "Patient"} · Patients · Health Dataspace Hub` },
];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requirePatientStaff(request, context);
  return { view: await loadPatientView(context.services, params.id ?? "", user) };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  return consentAction(request, context.services, params.id ?? "", user);
}

export default function PatientRoute() {
  const { view } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return <PatientProfileView view={view} result={result} back={{ to: "/patients", label: "All patients" }} />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <section className="card error-page" role="alert" data-testid="patient-error">
      <h1>
        {status === 404
          ? "Patient not found"
          : status === 403
            ? "Not your organisation's patient"
            : "Something went wrong"}
      </h1>
      <p>{routeErrorText(error, "The record could not be shown.")}</p>
      <AppLink to="/patients">Back to the patient list</AppLink>
    </section>
  );
}
