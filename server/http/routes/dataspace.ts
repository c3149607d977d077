import { anyUser, roles, ADMIN, HDAB, HOLDER, PARTICIPANT, staff, dataspace } from "./access";
import type { RouteSpec } from "./types";

/** The routes of credentials, negotiations, transfers, assets, participants and tasks. */
export const dataspaceRoutes: RouteSpec[] = [
  {
    path: "/api/credentials",
    capability: "credentials",
    methods: { GET: { access: staff, summary: "Verifiable credentials" } },
  },
  {
    path: "/api/credentials/definitions",
    capability: "credentials",
    methods: { GET: { access: staff, summary: "Credential definitions at the issuer" } },
  },
  {
    path: "/api/credentials/request",
    capability: "credentials",
    methods: { POST: { access: roles(ADMIN, PARTICIPANT), summary: "Start an issuance" } },
  },
  {
    path: "/api/credentials/:id",
    capability: "credentials",
    methods: { DELETE: { access: roles(ADMIN, HDAB), summary: "Revoke a credential" } },
  },
  {
    path: "/api/negotiations",
    capability: "negotiations",
    methods: {
      GET: { access: dataspace, summary: "Negotiations, or a provider catalogue with catalog=true" },
      POST: { access: dataspace, summary: "Start a contract negotiation" },
    },
  },
  {
    path: "/api/negotiations/:id",
    capability: "negotiations",
    methods: { GET: { access: dataspace, summary: "One negotiation" } },
  },
  {
    path: "/api/transfers",
    capability: "transfers",
    methods: {
      GET: { access: dataspace, summary: "Transfer processes" },
      POST: { access: dataspace, summary: "Start a transfer" },
    },
  },
  {
    path: "/api/transfers/:id",
    capability: "transfers",
    methods: { GET: { access: dataspace, summary: "One transfer" } },
  },
  {
    path: "/api/assets",
    capability: "assets",
    methods: {
      GET: { access: staff, summary: "Data assets" },
      POST: { access: roles(ADMIN, HOLDER), summary: "Register an asset" },
    },
  },
  {
    path: "/api/participants",
    capability: "participants",
    methods: {
      GET: { access: staff, summary: "Participant contexts" },
      POST: { access: roles(ADMIN), summary: "Onboard a participant" },
    },
  },
  {
    path: "/api/participants/me",
    capability: "participants",
    methods: { GET: { access: anyUser, summary: "The caller as a participant" } },
  },
  {
    path: "/api/participants/:id",
    capability: "participants",
    methods: { PATCH: { access: roles(ADMIN), summary: "Update a participant" } },
  },
  {
    path: "/api/participants/:id/credentials",
    capability: "participants",
    methods: { GET: { access: staff, summary: "A participant's credentials" } },
  },
  {
    path: "/api/tasks",
    capability: "tasks",
    methods: {
      GET: { access: dataspace, summary: "Negotiations and transfers as tasks (spec: scoped; admins all)" },
    },
  },
];
