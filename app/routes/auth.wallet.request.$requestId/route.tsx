import type { LoaderFunctionArgs } from "@remix-run/node";
import { errorJson } from "../../lib/api-errors.server";

/** The embedded verifier's request_uri: the OpenID4VP request object (application/oauth-authz-req+jwt). */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return context.services.eudi.requestObject(params.requestId ?? "").catch(errorJson);
}
