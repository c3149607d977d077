import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

/**
 * Every /api path goes through the one dispatcher (server/http/api-handler.ts), which reads the
 * route table for methods, roles and handlers. See docs/decisions/0002-api-dispatch.md.
 */
export const loader = ({ request, context }: LoaderFunctionArgs) => context.handleApi(request);
export const action = ({ request, context }: ActionFunctionArgs) => context.handleApi(request);
