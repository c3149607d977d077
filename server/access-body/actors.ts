import { findOrganisation, ORGANISATIONS } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import type { z } from "zod";
import { forbidden } from "../http/errors";
import { parseOr400 } from "../http/handler";
import type { Actor } from "./store";
import { invalidFields } from "../http/field-errors";

/**
 * Who the access body is, who acts on its records and what they may do: the roles that oversee
 * every organisation's records, the actor written into history entries, the organisation lookups
 * and the guards every workflow runs before it changes a record.
 */

export const ACCESS_BODY = {
  name: "MedReg DE",
  slug: "medreg",
  did: findOrganisation("medreg")?.did ?? "did:web:medreg.de:hdab",
  country: "DE",
  contact: "Data access desk, MedReg DE — access-desk@medreg.example (functional mailbox)",
};

const OVERSEERS = ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"] as const;

export function isOverseer(user: SessionUser): boolean {
  return user.roles.some((r) => (OVERSEERS as readonly string[]).includes(r));
}

export function actorOf(user: SessionUser): Actor {
  const order = ["HDAB_AUTHORITY", "DATA_USER", "DATA_HOLDER", "CONNECTOR_ADMIN"] as const;
  return {
    username: user.username,
    role: order.find((r) => user.roles.includes(r)) ?? user.roles[0] ?? "unknown",
  };
}

export const SYSTEM: Actor = { username: "system", role: "system" };

const orgOf = (organisation: string) => ORGANISATIONS.find((o) => o.displayName === organisation);
export const orgDid = (organisation: string): string | null => orgOf(organisation)?.did ?? null;
export const orgSlug = (organisation: string): string | null => orgOf(organisation)?.slug ?? null;

/** 403 unless the user holds `role` */
export function assertRole(user: SessionUser, role: string, what: string) {
  if (!user.roles.includes(role as never)) throw forbidden(`Only ${role} may ${what}`);
}

/** the body parsed with `schema` (its 400s), after a 400 "<fields> is/are required" for missing or empty `required` fields */
export function parseBody<S extends z.ZodType>(
  body: Record<string, unknown>,
  schema: S,
  ...required: string[]
): z.infer<S> {
  const missing = required.filter((k) => body[k] === undefined || body[k] === null || body[k] === "");
  if (missing.length)
    throw invalidFields(
      `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required`,
      missing.map((path) => ({ path, message: "Required" })),
    );
  return parseOr400(schema, body);
}
