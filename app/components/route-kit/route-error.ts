import { isRouteErrorResponse } from "@remix-run/react";

/** What an error boundary says: the text a route threw as its response, or `fallback`. */
export const routeErrorText = (error: unknown, fallback: string) =>
  isRouteErrorResponse(error) && typeof error.data === "string" ? error.data : fallback;
