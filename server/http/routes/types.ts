import type { Role } from "../../auth/personas";

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

export interface MethodSpec {
  access: Access;
  summary: string;
}

export interface RouteSpec {
  path: string;
  capability: string;
  methods: Partial<Record<HttpMethod, MethodSpec>>;
}
