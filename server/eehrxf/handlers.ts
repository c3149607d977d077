import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";

export const eehrxfHandlers: HandlerMap = {
  "GET /api/eehrxf": async ({ services }) => json(await services.eehrxf.coverage()),
};
