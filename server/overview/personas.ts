/** The overview's personas: what each role's home is about, and which persona a caller may open. */
import { z } from "zod";
import type { Role } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { anyCase, LAYERS, type Layer } from "../graph";
import { badRequest, forbidden } from "../http/errors";

/**
 * `graph`: the graph explorer's persona filter that shows exactly these layers (its `?persona=`,
 * server/graph's PERSONA_LAYERS): the home's "Your layers" link there, so the two show one scope.
 */
export const PERSONAS: Record<
  Role,
  { label: string; focus: string; layers: readonly Layer[]; graph?: string }
> = {
  CONNECTOR_ADMIN: {
    label: "Operator",
    focus: "the whole dataspace: graph health, contracts, approvals and new datasets",
    layers: LAYERS,
    graph: "operator",
  },
  HDAB_AUTHORITY: {
    label: "Access body",
    focus: "applications and permits under the statutory clock",
    layers: ["l1", "l2", "l4", "l5"],
    graph: "hdab",
  },
  DATA_HOLDER: {
    label: "Data holder",
    focus: "your datasets, your patients' data and the contracts and permits on it",
    layers: LAYERS,
    graph: "holder",
  },
  DATA_USER: {
    label: "Data user",
    focus: "your contracts, permits and the datasets you can use",
    layers: ["l1", "l2", "l4", "l5"],
    graph: "user",
  },
  TRUST_CENTER_OPERATOR: {
    label: "Trust center",
    focus: "pseudonymised data in the secure processing environments",
    layers: ["l1", "l3", "l4"],
    graph: "trust",
  },
  CONNECTOR_USER_PARTICIPANT: {
    label: "Dataspace participant",
    focus: "your organisation's contracts",
    layers: ["l1", "l2"],
  },
  PATIENT: { label: "Patient", focus: "your record and your consents", layers: [] },
};

export const ORDER: Role[] = [
  "CONNECTOR_ADMIN",
  "HDAB_AUTHORITY",
  "DATA_USER",
  "DATA_HOLDER",
  "TRUST_CENTER_OPERATOR",
  "PATIENT",
  "CONNECTOR_USER_PARTICIPANT",
];
const ALIASES: Record<string, Role> = {
  admin: "CONNECTOR_ADMIN",
  operator: "CONNECTOR_ADMIN",
  regulator: "HDAB_AUTHORITY",
  hdab: "HDAB_AUTHORITY",
  holder: "DATA_HOLDER",
  clinic: "DATA_HOLDER",
  lmc: "DATA_HOLDER",
  researcher: "DATA_USER",
  user: "DATA_USER",
  trustcenter: "TRUST_CENTER_OPERATOR",
  trust: "TRUST_CENTER_OPERATOR",
  patient: "PATIENT",
  participant: "CONNECTOR_USER_PARTICIPANT",
};

/**
 * `?persona=`: a role or an alias in any case (an alias may end in digits), white space around ignored;
 * absent or empty: the caller's main role. The pattern is the check (`resolvePersona`), so the document
 * states it.
 */
export const personaQuery = z
  .string()
  .regex(
    new RegExp(
      `^$|^\\s*(?:${ORDER.map(anyCase).join("|")}|(?:${Object.keys(ALIASES).map(anyCase).join("|")})\\d*)\\s*$`,
    ),
    `persona must be one of ${ORDER.join(", ")} (or ${Object.keys(ALIASES).join(", ")})`,
  )
  .optional()
  .describe("the persona to show (operators may pick any): a role or an alias, any case");

export function resolvePersona(user: Pick<SessionUser, "roles">, raw: string | null): Role {
  if (!raw) return ORDER.find((r) => user.roles.includes(r)) ?? user.roles[0];
  const checked = personaQuery.safeParse(raw);
  if (!checked.success) throw badRequest(checked.error.issues[0].message);
  const key = raw.trim().toUpperCase();
  const role = (ORDER as string[]).includes(key)
    ? (key as Role)
    : ALIASES[key.toLowerCase().replace(/\d+$/, "")];
  if (!user.roles.includes(role) && !user.roles.includes("CONNECTOR_ADMIN"))
    throw forbidden("You can only open the overview of your own roles");
  return role;
}
