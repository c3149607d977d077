import { json } from "../http/errors";
import { intParam, type HandlerMap } from "../http/handler";
import { TOP_DEFAULT, TOP_MAX } from "./contract";
import type { AnalyticsService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface AnalyticsServices {
  analytics: AnalyticsService;
}

export const analyticsHandlers: HandlerMap<AnalyticsServices> = {
  "GET /api/analytics": async ({ services, query, user }) =>
    json(await services.analytics.dashboard(user!, { top: intParam(query, "top", TOP_DEFAULT, 1, TOP_MAX) })),
};
