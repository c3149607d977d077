import type { Role } from "../../types";

/**
 * What each persona does next, shown on its home instead of a copy of the sidebar: the two or three
 * views its work starts from, each with why. Keyed by the persona (role) the home is showing.
 */
export const NEXT_STEPS: Record<Role, { to: string; label: string; why: string }[]> = {
  CONNECTOR_ADMIN: [
    { to: "/operator", label: "Check the components", why: "health, topology and restarts of the dataspace" },
    { to: "/onboarding", label: "Onboard a participant", why: "create its context, DID and credentials" },
    { to: "/audit", label: "Review the audit trail", why: "who did what, with the hash chain verified" },
  ],
  HDAB_AUTHORITY: [
    {
      to: "/access-body",
      label: "Work the queue",
      why: "applications and requests under the statutory clock",
    },
    { to: "/access-body/permits", label: "Permits", why: "issued permits, expiries and revocations" },
    {
      to: "/access-body/report",
      label: "Activity report",
      why: "decision times and outcomes for the period",
    },
  ],
  DATA_HOLDER: [
    { to: "/catalogue/new", label: "Publish a dataset", why: "describe it in HealthDCAT-AP for data users" },
    { to: "/share", label: "Share data", why: "offer a dataset in the dataspace under an ODRL policy" },
    { to: "/patients", label: "Patients", why: "the records you hold" },
  ],
  DATA_USER: [
    { to: "/catalogue", label: "Find data", why: "search the catalogue for datasets" },
    { to: "/applications", label: "My applications", why: "apply for a data permit and follow its clock" },
    { to: "/cohorts", label: "Build a cohort", why: "k-anonymous counts across data holders" },
  ],
  CONNECTOR_USER_PARTICIPANT: [
    { to: "/discover", label: "Discover data", why: "providers' catalogues in the dataspace" },
    { to: "/negotiations", label: "Negotiations", why: "contracts under way and agreed" },
    { to: "/transfers", label: "Transfers", why: "data moving under your contracts" },
  ],
  TRUST_CENTER_OPERATOR: [
    {
      to: "/trust-center",
      label: "Trust center",
      why: "pseudonym domains, linkages and processing sessions",
    },
    { to: "/cohorts", label: "Cohorts", why: "aggregate counts with small cells suppressed" },
    { to: "/credentials", label: "Credentials", why: "the trust center's verifiable credentials" },
  ],
  PATIENT: [
    { to: "/my-record", label: "My record", why: "your health record and research consent" },
    { to: "/devices", label: "Devices and app", why: "pair the companion app, remove a device" },
    { to: "/register", label: "Permit register", why: "who may use health data, and for what" },
  ],
};
