import type { ActionFunctionArgs } from "@remix-run/node";

/** The embedded verifier's response_uri: the wallet's direct_post (OpenID4VP 1.0, section 8.2). */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST")
    return Response.json(
      { error: "invalid_request", error_description: "POST only" },
      { status: 405, headers: { Allow: "POST" } },
    );
  return context.services.eudi.directPost(request);
}

export async function loader() {
  return Response.json(
    { error: "invalid_request", error_description: "The wallet posts its response here (direct_post)" },
    { status: 405, headers: { Allow: "POST" } },
  );
}
