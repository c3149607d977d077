import type { LoaderFunctionArgs } from "@remix-run/node";

/** The embedded verifier's request_uri: the OpenID4VP request object (application/oauth-authz-req+jwt). */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return context.services.eudi.requestObject(params.requestId ?? "");
}
