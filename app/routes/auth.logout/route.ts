import { redirect, type ActionFunctionArgs } from "@remix-run/node";

/** POST only: ends the app session and the provider session. */
export const action = ({ request, context }: ActionFunctionArgs) => context.services.oidc.logout(request);
export const loader = () => redirect("/");
