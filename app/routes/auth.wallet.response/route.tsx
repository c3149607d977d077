import type { ActionFunctionArgs } from "@remix-run/node";
import { errorJson } from "../../lib/api-errors.server";

const postOnly = (error_description: string) =>
  Response.json({ error: "invalid_request", error_description }, { status: 405, headers: { Allow: "POST" } });

/** The embedded verifier's response_uri: the wallet's direct_post (OpenID4VP 1.0, section 8.2). */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return postOnly("POST only");
  return context.services.eudi.directPost(request).catch(errorJson);
}

export const loader = () => postOnly("The wallet posts its response here (direct_post)");
