import { findPersona } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";

/** Helpers shared by the test files split from dataspace-local.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type JsonBody = any;

export const ALPHA_DID = "did:web:alpha-klinik.de:participant";

export function user(username: string): SessionUser {
  const p = findPersona(username)!;
  return {
    sub: username,
    username,
    name: p.name,
    roles: p.roles,
    organisation: p.organisation,
    participantDid: p.participantDid,
    patientId: p.patientId,
  };
}

export interface Call {
  query?: Record<string, string>;
  body?: unknown;
  params?: Record<string, string>;
  as?: string;
}
