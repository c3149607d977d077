import { anyUser, roles, ADMIN, HDAB, HOLDER, PARTICIPANT, staff, dataspace } from "./access";
import { routesOf } from "./build";
import type { RouteSpec } from "./types";

const credentials = routesOf("credentials");
const negotiations = routesOf("negotiations");
const transfers = routesOf("transfers");
const assets = routesOf("assets");
const participants = routesOf("participants");
const tasks = routesOf("tasks");

/** The routes of credentials, negotiations, transfers, assets, participants and tasks. */
export const dataspaceRoutes: RouteSpec[] = [
  credentials("/api/credentials", { GET: [staff, "Verifiable credentials"] }),
  credentials("/api/credentials/definitions", { GET: [staff, "Credential definitions at the issuer"] }),
  credentials("/api/credentials/request", { POST: [roles(ADMIN, PARTICIPANT), "Start an issuance"] }),
  credentials("/api/credentials/:id", { DELETE: [roles(ADMIN, HDAB), "Revoke a credential"] }),
  negotiations("/api/negotiations", {
    GET: [dataspace, "Negotiations, or a provider catalogue with catalog=true", "query"],
    POST: [dataspace, "Start a contract negotiation", "body"],
  }),
  negotiations("/api/negotiations/:id", { GET: [dataspace, "One negotiation", "query"] }),
  transfers("/api/transfers", {
    GET: [dataspace, "Transfer processes", "query"],
    POST: [dataspace, "Start a transfer", "body"],
  }),
  transfers("/api/transfers/:id", { GET: [dataspace, "One transfer", "query"] }),
  assets("/api/assets", {
    GET: [staff, "Data assets", "query"],
    POST: [roles(ADMIN, HOLDER), "Register an asset", "body"],
  }),
  participants("/api/participants", {
    GET: [staff, "Participant contexts"],
    POST: [roles(ADMIN), "Onboard a participant"],
  }),
  participants("/api/participants/me", { GET: [anyUser, "The caller as a participant"] }),
  participants("/api/participants/:id", { PATCH: [roles(ADMIN), "Update a participant"] }),
  participants("/api/participants/:id/credentials", { GET: [staff, "A participant's credentials"] }),
  tasks("/api/tasks", { GET: [dataspace, "Negotiations and transfers as tasks (spec: scoped; admins all)"] }),
];
