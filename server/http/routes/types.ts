import type { Role } from "../../auth/personas";
import type { KeepSpec } from "../kept";

/** The shape of the route table (server/http/route-table.ts). */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Access =
  /** no session needed */
  | { kind: "public" }
  /** a session, and (unless "any") one of the roles */
  | { kind: "session"; roles: "any" | readonly Role[] }
  /** a session or the catalogue crawler's bearer token (CRAWLER_TOKEN) */
  | { kind: "session-or-crawler" }
  /** no cookie session: a device attestation of the companion app is checked by the handler */
  | { kind: "device-attestation" }
  /** a PATIENT session, or the device-bound credential of a paired companion app */
  | { kind: "patient-or-device" };

/**
 * Where a dataspace call names the participant context it reads or acts in (`participantId` in the
 * query or the JSON body). Such a call follows the one rule of acting participants
 * (server/dataspace/acting.ts): a CONNECTOR_ADMIN any context, every other role only its own
 * organisation's (403 otherwise); the authorisation matrix test walks these "own vs other
 * organisation" cases from the table.
 */
export type ActsIn = "query" | "body";

export interface MethodSpec {
  access: Access;
  summary: string;
  actsIn?: ActsIn;
}

export interface RouteSpec {
  path: string;
  capability: string;
  methods: Partial<Record<HttpMethod, MethodSpec>>;
  /** its GET answer is kept (server/kept): what the answer depends on, the caller's class always among it */
  keep?: KeepSpec;
}
