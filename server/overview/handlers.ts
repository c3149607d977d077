import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import { analyticsHandlers, type AnalyticsServices } from "../analytics/handlers";
import { eehrxfHandlers, type EehrxfServices } from "../eehrxf/handlers";
import { federatedHandlers, type FederatedServices } from "../federated/handlers";
import { nlqHandlers, type NlqServices } from "../nlq/handlers";
import type { OverviewService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export type InsightServices = { overview: OverviewService } & AnalyticsServices &
  FederatedServices &
  NlqServices &
  EehrxfServices;

/** every insight route (analytics, federated cohorts, questions, EEHRxF, overview): one spread in server/api-routes.ts */
export const insightHandlers: HandlerMap<InsightServices> = {
  ...analyticsHandlers,
  ...federatedHandlers,
  ...nlqHandlers,
  ...eehrxfHandlers,
  "GET /api/overview": async ({ services, input, user }) =>
    json(
      await services.overview.forUser(user!, (input.query.persona as string | undefined) ?? null, services),
    ),
};
