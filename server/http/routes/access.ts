import type { Role } from "../../auth/personas";
import type { Access } from "./types";

/** Who may call a route: the access values and role groups the route table is written with. */

export const pub: Access = { kind: "public" };
export const anyUser: Access = { kind: "session", roles: "any" };
export const roles = (...r: Role[]): Access => ({ kind: "session", roles: r });

export const ADMIN: Role = "CONNECTOR_ADMIN";
export const HDAB: Role = "HDAB_AUTHORITY";
export const HOLDER: Role = "DATA_HOLDER";
export const USER: Role = "DATA_USER";
export const PATIENT: Role = "PATIENT";
export const TRUST: Role = "TRUST_CENTER_OPERATOR";
export const PARTICIPANT: Role = "CONNECTOR_USER_PARTICIPANT";

/** Everyone but patients: the graph and dataspace views hold other people's data. */
export const staff = roles(ADMIN, HDAB, HOLDER, USER, TRUST, PARTICIPANT);
export const dataspace = roles(ADMIN, PARTICIPANT, HOLDER, USER);
export const patientData = roles(PATIENT, HOLDER, ADMIN);
