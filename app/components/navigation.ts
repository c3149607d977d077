import type { Role } from "../types";

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
    roles: [
      "CONNECTOR_ADMIN",
      "HDAB_AUTHORITY",
      "DATA_HOLDER",
      "DATA_USER",
      "TRUST_CENTER_OPERATOR",
      "CONNECTOR_USER_PARTICIPANT",
    ],
    group: "Explore",
  },
  // insight (issue 6): OMOP analytics, federated cohorts, questions, EEHRxF coverage
  {
    to: "/analytics",
    label: "Analytics",
    roles: ["DATA_USER", "DATA_HOLDER", "HDAB_AUTHORITY", "CONNECTOR_ADMIN"],
    group: "Explore",
  },
  {
    to: "/cohorts",
    label: "Cohort builder",
    roles: ["DATA_USER", "DATA_HOLDER", "HDAB_AUTHORITY", "CONNECTOR_ADMIN", "TRUST_CENTER_OPERATOR"],
    group: "Explore",
  },
  {
    to: "/ask",
    label: "Ask a question",
    roles: ["DATA_USER", "DATA_HOLDER", "HDAB_AUTHORITY", "CONNECTOR_ADMIN"],
    group: "Explore",
  },
  {
    to: "/eehrxf",
    label: "EEHRxF coverage",
    roles: [
      "DATA_USER",
      "DATA_HOLDER",
      "HDAB_AUTHORITY",
      "CONNECTOR_ADMIN",
      "TRUST_CENTER_OPERATOR",
      "CONNECTOR_USER_PARTICIPANT",
    ],
    group: "Explore",
  },
  // dataspace (issue 3): participants, assets, negotiations, transfers, tasks
  {
    to: "/dataspace",
    label: "Dataspace",
    roles: ["CONNECTOR_ADMIN", "CONNECTOR_USER_PARTICIPANT", "DATA_HOLDER", "DATA_USER"],
    group: "Dataspace",
  },
  {
    to: "/discover",
    label: "Discover data",
    roles: [
      "CONNECTOR_ADMIN",
      "HDAB_AUTHORITY",
      "DATA_HOLDER",
      "DATA_USER",
      "TRUST_CENTER_OPERATOR",
      "CONNECTOR_USER_PARTICIPANT",
    ],
    group: "Dataspace",
  },
  {
    to: "/negotiations",
    label: "Negotiations",
    roles: ["CONNECTOR_ADMIN", "CONNECTOR_USER_PARTICIPANT", "DATA_HOLDER", "DATA_USER"],
    group: "Dataspace",
  },
  {
    to: "/transfers",
    label: "Transfers",
    roles: ["CONNECTOR_ADMIN", "CONNECTOR_USER_PARTICIPANT", "DATA_HOLDER", "DATA_USER"],
    group: "Dataspace",
  },
  {
    to: "/tasks",
    label: "Tasks",
    roles: ["CONNECTOR_ADMIN", "CONNECTOR_USER_PARTICIPANT", "DATA_HOLDER", "DATA_USER"],
    group: "Dataspace",
  },
  { to: "/share", label: "Share data", roles: ["CONNECTOR_ADMIN", "DATA_HOLDER"], group: "Dataspace" },
  { to: "/onboarding", label: "Participants", roles: ["CONNECTOR_ADMIN"], group: "Dataspace" },
  { to: "/patients", label: "Patients", roles: ["DATA_HOLDER", "CONNECTOR_ADMIN"], group: "Care" },
  { to: "/my-record", label: "My record", roles: ["PATIENT"], group: "Care" },
  { to: "/devices", label: "Devices and app", roles: ["PATIENT"], group: "Care" },
  // access body (issue 5)
  {
    to: "/access-body",
    label: "Access body",
    roles: ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"],
    group: "Governance",
  },
  {
    to: "/access-body/report",
    label: "Activity report",
    roles: ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"],
    group: "Governance",
  },
  { to: "/applications", label: "My applications", roles: ["DATA_USER"], group: "Governance" },
  {
    to: "/access-body/findings",
    label: "Findings",
    roles: ["DATA_USER", "DATA_HOLDER"],
    group: "Governance",
  },
  { to: "/register", label: "Permit register", roles: "any", group: "Governance" },
  { to: "/information", label: "Secondary use", roles: "any", group: "Governance" },
  // trust and governance (issue 4): credentials, policies, audit, trust center, operator console
  {
    to: "/trust-center",
    label: "Trust center",
    roles: ["TRUST_CENTER_OPERATOR", "CONNECTOR_ADMIN"],
    group: "Governance",
  },
  {
    to: "/credentials",
    label: "Credentials",
    roles: [
      "CONNECTOR_ADMIN",
      "HDAB_AUTHORITY",
      "DATA_HOLDER",
      "DATA_USER",
      "TRUST_CENTER_OPERATOR",
      "CONNECTOR_USER_PARTICIPANT",
    ],
    group: "Governance",
  },
  {
    to: "/policies",
    label: "ODRL policies",
    roles: ["CONNECTOR_ADMIN", "HDAB_AUTHORITY"],
    group: "Governance",
  },
  { to: "/audit", label: "Audit trail", roles: ["CONNECTOR_ADMIN", "HDAB_AUTHORITY"], group: "Governance" },
  { to: "/operator", label: "Operator console", roles: ["CONNECTOR_ADMIN"], group: "Operate" },
  { to: "/components", label: "Components", roles: ["CONNECTOR_ADMIN"], group: "Operate" },
  { to: "/tenants", label: "Tenants", roles: ["CONNECTOR_ADMIN"], group: "Operate" },
  { to: "/directory", label: "Participant directory", roles: ["CONNECTOR_ADMIN"], group: "Operate" },
];

export function navFor(roles: readonly Role[]): NavItem[] {
  return NAV_ITEMS.filter((i) => i.roles === "any" || i.roles.some((r) => roles.includes(r)));
}
