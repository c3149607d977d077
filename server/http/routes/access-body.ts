import { pub, anyUser, roles, ADMIN, HDAB, HOLDER, USER } from "./access";
import type { RouteSpec } from "./types";

/** The routes of the access body and the compliance summary. */
export const accessBodyRoutes: RouteSpec[] = [
  {
    path: "/api/compliance",
    capability: "compliance",
    methods: {
      GET: { access: roles(HDAB, ADMIN, HOLDER, USER), summary: "EHDS/GDPR/DSP/DCP compliance summary" },
    },
  },
  {
    path: "/api/compliance/tck",
    capability: "compliance",
    methods: { GET: { access: roles(HDAB, ADMIN), summary: "Conformance probes" } },
  },
  {
    path: "/api/compliance/applications",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Data access applications" },
      POST: { access: roles(USER), summary: "Submit an application" },
    },
  },
  {
    path: "/api/compliance/applications/clock",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Clock events: extend, pause, resume" } },
  },
  {
    path: "/api/compliance/applications/complete",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Completeness decision" } },
  },
  {
    path: "/api/compliance/findings",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER, HOLDER), summary: "Supervision findings" },
      POST: { access: roles(HDAB), summary: "Open a finding" },
    },
  },
  {
    path: "/api/compliance/findings/close",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Close a finding" } },
  },
  {
    path: "/api/compliance/findings/respond",
    capability: "access-body",
    methods: { POST: { access: roles(USER, HOLDER), summary: "Respond to a finding" } },
  },
  {
    path: "/api/compliance/information-requests",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Information requests" },
      POST: { access: roles(HDAB), summary: "Ask an applicant for information" },
    },
  },
  {
    path: "/api/compliance/information-requests/answer",
    capability: "access-body",
    methods: { POST: { access: roles(USER), summary: "Answer an information request" } },
  },
  {
    path: "/api/compliance/permits",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Issue a data permit" } },
  },
  {
    path: "/api/compliance/permits/revoke",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Revoke a data permit" } },
  },
  {
    path: "/api/compliance/requests",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Data requests (Art. 69)" },
      POST: { access: roles(USER), summary: "Submit a data request" },
    },
  },
  {
    path: "/api/compliance/requests/decide",
    capability: "access-body",
    methods: { POST: { access: roles(HDAB), summary: "Decide a data request" } },
  },
  {
    path: "/api/compliance/results",
    capability: "access-body",
    methods: {
      GET: { access: roles(HDAB, ADMIN, USER), summary: "Declared results" },
      POST: { access: roles(USER, HDAB), summary: "Declare or check a result" },
    },
  },
  {
    path: "/api/permits",
    capability: "access-body",
    methods: { GET: { access: anyUser, summary: "Register of applications and permits (Art. 57)" } },
  },
  {
    path: "/api/activity-report",
    capability: "access-body",
    methods: { GET: { access: roles(HDAB, ADMIN), summary: "Activity report (Art. 59)" } },
  },
  {
    path: "/api/information",
    capability: "access-body",
    methods: {
      GET: { access: pub, summary: "Public information on secondary use (Art. 58(1)) (spec: public)" },
    },
  },
];
