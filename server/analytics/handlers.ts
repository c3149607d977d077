import { json } from "../http/errors";
import { intParam, type HandlerMap } from "../http/handler";
import { TOP_DEFAULT, TOP_MAX } from "./service";

export const analyticsHandlers: HandlerMap = {
  "GET /api/analytics": async ({ services, url, user }) =>
    json(await services.analytics.dashboard(user!, { top: intParam(url, "top", TOP_DEFAULT, 1, TOP_MAX) })),
};
