import type { Role } from "../../server/auth/personas";

/** The role-aware navigation: one entry per view, shown to the roles listed ("any": every signed-in user). */
export interface NavItem {
  to: string;
  label: string;
  roles: "any" | readonly Role[];
  group: "Explore" | "Dataspace" | "Governance" | "Care" | "Operate";
}

export const NAV_ITEMS: NavItem[] = [
  { to: "/", label: "Overview", roles: "any", group: "Explore" },
  { to: "/catalogue", label: "Catalogue", roles: "any", group: "Explore" },
  {
    to: "/graph",
    label: "Knowledge graph",
    roles: ["CONNECTOR_ADMIN", "HDAB_AUTHORITY", "DATA_HOLDER", "DATA_USER", "TRUST_CENTER_OPERATOR", "CONNECTOR_USER_PARTICIPANT"],
    group: "Explore",
  },
  { to: "/patients", label: "Patients", roles: ["DATA_HOLDER", "CONNECTOR_ADMIN"], group: "Care" },
  { to: "/my-record", label: "My record", roles: ["PATIENT"], group: "Care" },
];

export function navFor(roles: readonly Role[]): NavItem[] {
  return NAV_ITEMS.filter((i) => i.roles === "any" || i.roles.some((r) => roles.includes(r)));
}
