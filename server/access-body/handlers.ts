import { badRequest, json } from "../http/errors";
import { queryInt, sentBody } from "../http/contract";
import type { HandlerContext, HandlerMap } from "../http/handler";
import { reportCsv, reportHtml, reportPeriod } from "./report";
import type { SessionUser } from "../auth/user";
import type { AccessBody } from ".";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface AccessBodyServices {
  accessBody: AccessBody;
}

/**
 * The /api routes of the access body (route-table.ts, capability "access-body"; the compliance
 * views' routes are in server/compliance/handlers.ts). Request and response fields: server/access-body/README.md.
 * GET lists take `?state=`; `?id=` answers one record with its full history.
 */

const q = (ctx: HandlerContext<AccessBodyServices>, name: string) =>
  ctx.input.query[name] as string | undefined;
/** a GET of one record (`?id=`) or of the list, filtered by the query parameters `filters` */
const oneOrList =
  (
    one: "getDataRequest" | "getFinding" | "getResult" | "getInformationRequest",
    list: "listDataRequests" | "listFindings" | "listResults" | "listInformationRequests",
    filters = ["state"],
  ) =>
  async (ctx: HandlerContext<AccessBodyServices>) => {
    const ab = ctx.services.accessBody;
    const id = q(ctx, "id");
    if (id) return json(await ab[one](id, ctx.user!));
    return json(await ab[list](ctx.user!, Object.fromEntries(filters.map((k) => [k, q(ctx, k)]))));
  };

/** the service's methods that take a request body and the caller */
type BodyMethod = {
  [K in keyof AccessBody]: AccessBody[K] extends (body: Record<string, unknown>, user: SessionUser) => unknown
    ? K
    : never;
}[keyof AccessBody];
/** a POST answered by one method with the body sent */
const post =
  (method: BodyMethod, status = 200) =>
  async (ctx: HandlerContext<AccessBodyServices>) =>
    json(await ctx.services.accessBody[method](sentBody(ctx), ctx.user!), status);
/**
 * A POST that creates a record (201), or, naming the record (`idKey`) or an action, withdraws it:
 * any other action is a 400 that says how to create one instead.
 */
const createOrWithdraw =
  (idKey: string, create: BodyMethod, withdraw: BodyMethod, howToCreate: string) =>
  async (ctx: HandlerContext<AccessBodyServices>) => {
    const body = sentBody(ctx);
    if (body[idKey] === undefined && body.action === undefined) return post(create, 201)(ctx);
    if (body.action !== "withdraw") throw badRequest(`action must be "withdraw" (${howToCreate})`);
    return post(withdraw)(ctx);
  };

export const accessBodyHandlers: HandlerMap<AccessBodyServices> = {
  "GET /api/compliance/applications": async (ctx) => {
    const ab = ctx.services.accessBody;
    const id = q(ctx, "id");
    if (id) return json(await ab.getApplication(id, ctx.user!));
    return json(
      await ab.listApplications(ctx.user!, {
        state: q(ctx, "state"),
        // optional page (a work queue reads one); without `limit` the whole list, as the spec says
        limit: q(ctx, "limit") ? Number(q(ctx, "limit")) : undefined,
        offset: queryInt(q(ctx, "offset"), 0),
      }),
    );
  },
  "POST /api/compliance/applications": createOrWithdraw(
    "applicationId",
    "submitApplication",
    "withdrawApplication",
    "to submit a new application, send no applicationId",
  ),
  "POST /api/compliance/applications/complete": post("decideCompleteness"),
  "POST /api/compliance/applications/clock": post("clockEvent"),

  "GET /api/compliance/information-requests": oneOrList("getInformationRequest", "listInformationRequests", [
    "state",
    "applicationId",
  ]),
  "POST /api/compliance/information-requests": createOrWithdraw(
    "informationRequestId",
    "requestInformation",
    "withdrawInformationRequest",
    "to ask for information, send applicationId and questions",
  ),
  "POST /api/compliance/information-requests/answer": post("answerInformationRequest"),

  "POST /api/compliance/permits": async (ctx) => {
    const r = await ctx.services.accessBody.decidePermit(sentBody(ctx), ctx.user!);
    return r.kind === "permit" ? json(r.permit, 201) : json(r.application);
  },
  "POST /api/compliance/permits/revoke": post("revokePermit"),

  "GET /api/compliance/requests": oneOrList("getDataRequest", "listDataRequests"),
  "POST /api/compliance/requests": createOrWithdraw(
    "requestId",
    "submitDataRequest",
    "withdrawDataRequest",
    "to submit a new data request, send no requestId",
  ),
  "POST /api/compliance/requests/decide": post("decideDataRequest"),

  "GET /api/compliance/findings": oneOrList("getFinding", "listFindings"),
  "POST /api/compliance/findings": post("openFinding", 201),
  "POST /api/compliance/findings/respond": post("respondFinding"),
  "POST /api/compliance/findings/close": post("closeFinding"),

  "GET /api/compliance/results": oneOrList("getResult", "listResults"),
  "POST /api/compliance/results": async (ctx) => {
    const r = await ctx.services.accessBody.postResult(sentBody(ctx), ctx.user!);
    return json(r.result, r.created ? 201 : 200);
  },

  "GET /api/permits": async (ctx) => json(await ctx.services.accessBody.register()),
  "GET /api/information": async (ctx) => json(await ctx.services.accessBody.information()),

  "GET /api/activity-report": async (ctx) => {
    const ab = ctx.services.accessBody;
    const period = reportPeriod(ctx.input.query, ab.now());
    const format = q(ctx, "format") ?? "json";
    const report = await ab.activityReport(period);
    if (format === "json") return json(report);
    const csv = format === "csv";
    return new Response(csv ? reportCsv(report) : reportHtml(report), {
      headers: {
        "Content-Type": `${csv ? "text/csv" : "text/html"}; charset=utf-8`,
        "Content-Disposition": `attachment; filename="activity-report-${period.from}-${period.to}.${csv ? "csv" : "html"}"`,
        "Cache-Control": "no-store",
      },
    });
  },
};
