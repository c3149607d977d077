import { redirect } from "@remix-run/node";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { isApiError, fieldErrorsOf, shownInPlace, type InPlace, readForm } from "../../lib/api-errors.server";
import { PublishForm } from "../../components/catalogue/PublishForm";
import {
  formFieldErrors,
  formValues,
  toDatasetInput,
  type PublishResult,
} from "../../components/catalogue/publish";
import { useCatalogueSearch } from "../../components/catalogue/useCatalogueSearch";
import { requireRole } from "../../session.server";
import { PUBLISHER_ROLES } from "../../lib/access.server";

export const meta: MetaFunction = () => [{ title: "Publish a dataset · Catalogue · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, PUBLISHER_ROLES);
  const purposes = context.services.accessBody.purposes.map((p) => {
    const label = `${p.label} (${p.point})`;
    return { value: label, label };
  });
  return { publisher: user.organisation, purposes };
}

export async function action({
  request,
  context,
}: ActionFunctionArgs): Promise<InPlace<PublishResult> | Response> {
  const user = await requireRole(request, context, PUBLISHER_ROLES);
  const values = formValues(await readForm(request));
  try {
    const created = await context.services.catalogue.create(toDatasetInput(values), user);
    return redirect(`/catalogue/${encodeURIComponent(created.id)}?created=1`);
  } catch (e) {
    if (isApiError(e) && [400, 403, 404, 409].includes(e.status)) {
      return shownInPlace({ error: e.message, fields: formFieldErrors(fieldErrorsOf(e)), values }, e.status);
    }
    throw e;
  }
}

export default function PublishDataset() {
  const { publisher, purposes } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as PublishResult | undefined;
  const search = useCatalogueSearch();
  return (
    <div className="card" data-testid="publish-pane">
      <PublishForm
        result={result}
        defaults={{ publisher }}
        cancelTo={`/catalogue${search}`}
        purposes={purposes}
      />
    </div>
  );
}
