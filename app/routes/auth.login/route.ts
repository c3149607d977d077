import type { LoaderFunctionArgs } from "@remix-run/node";

/** /auth/login?login_hint=<username>&returnTo=<path>: starts the OpenID flow at once. */
export const loader = ({ request, context }: LoaderFunctionArgs) => context.services.oidc.login(request);
