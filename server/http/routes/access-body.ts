import { pub, anyUser, roles, ADMIN, HDAB, HOLDER, USER } from "./access";
import { routesOf } from "./build";
import type { KeepSpec } from "../kept";
import type { RouteSpec } from "./types";

const compliance = routesOf("compliance");
const accessBody = routesOf("access-body");

/** a list of records (or one by `?id=`): an overseer sees every organisation's, anyone else their own's; views count days */
const LIST: KeepSpec = { caller: "organisation", versions: ["records", "day"] };

/** The routes of the access body and the compliance summary. */
export const accessBodyRoutes: RouteSpec[] = [
  compliance(
    "/api/compliance",
    {
      GET: [roles(HDAB, ADMIN, HOLDER, USER), "EHDS/GDPR/DSP/DCP compliance summary"],
    },
    { keep: { caller: "organisation", versions: ["records", "graph", "day"] } },
  ),
  compliance("/api/compliance/tck", { GET: [roles(HDAB, ADMIN), "Conformance probes"] }),
  accessBody(
    "/api/compliance/applications",
    {
      GET: [roles(HDAB, ADMIN, USER), "Data access applications"],
      POST: [roles(USER), "Submit an application"],
    },
    { keep: LIST },
  ),
  accessBody("/api/compliance/applications/clock", {
    POST: [roles(HDAB), "Clock events: extend, pause, resume"],
  }),
  accessBody("/api/compliance/applications/complete", { POST: [roles(HDAB), "Completeness decision"] }),
  accessBody(
    "/api/compliance/findings",
    {
      GET: [roles(HDAB, ADMIN, USER, HOLDER), "Supervision findings"],
      POST: [roles(HDAB), "Open a finding"],
    },
    { keep: LIST },
  ),
  accessBody("/api/compliance/findings/close", { POST: [roles(HDAB), "Close a finding"] }),
  accessBody("/api/compliance/findings/respond", { POST: [roles(USER, HOLDER), "Respond to a finding"] }),
  accessBody(
    "/api/compliance/information-requests",
    {
      GET: [roles(HDAB, ADMIN, USER), "Information requests"],
      POST: [roles(HDAB), "Ask an applicant for information"],
    },
    { keep: LIST },
  ),
  accessBody("/api/compliance/information-requests/answer", {
    POST: [roles(USER), "Answer an information request"],
  }),
  accessBody("/api/compliance/permits", { POST: [roles(HDAB), "Issue a data permit"] }),
  accessBody("/api/compliance/permits/revoke", { POST: [roles(HDAB), "Revoke a data permit"] }),
  accessBody(
    "/api/compliance/requests",
    {
      GET: [roles(HDAB, ADMIN, USER), "Data requests (Art. 69)"],
      POST: [roles(USER), "Submit a data request"],
    },
    { keep: LIST },
  ),
  accessBody("/api/compliance/requests/decide", { POST: [roles(HDAB), "Decide a data request"] }),
  accessBody(
    "/api/compliance/results",
    {
      GET: [roles(HDAB, ADMIN, USER), "Declared results"],
      POST: [roles(USER, HDAB), "Declare or check a result"],
    },
    { keep: LIST },
  ),
  accessBody(
    "/api/permits",
    { GET: [anyUser, "Register of applications and permits (Art. 57)"] },
    {
      keep: { caller: "everyone", versions: ["records", "day"] },
    },
  ),
  accessBody(
    "/api/activity-report",
    { GET: [roles(HDAB, ADMIN), "Activity report (Art. 59)"] },
    {
      keep: { caller: "everyone", versions: ["records", "graph", "day"] },
    },
  ),
  accessBody(
    "/api/information",
    {
      GET: [pub, "Public information on secondary use (Art. 58(1)) (spec: public)"],
    },
    { keep: { caller: "everyone", versions: ["records", "graph"] } },
  ),
];
